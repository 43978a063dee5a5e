"""sitbench.configs"""
