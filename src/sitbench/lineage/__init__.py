"""sitbench.lineage"""
