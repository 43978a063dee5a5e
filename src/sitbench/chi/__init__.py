"""sitbench.chi"""
