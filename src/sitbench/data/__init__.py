"""sitbench.data"""
