"""sitbench.stats"""
