"""sitbench.audit"""
