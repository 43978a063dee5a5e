"""sitbench.runs"""
