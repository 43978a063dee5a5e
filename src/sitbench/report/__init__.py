"""sitbench.report"""
