"""sitbench.verify"""
