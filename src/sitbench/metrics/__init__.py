"""sitbench.metrics"""
