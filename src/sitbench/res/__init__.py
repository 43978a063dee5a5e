"""sitbench.res"""
