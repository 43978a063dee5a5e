"""sitbench.schema"""
