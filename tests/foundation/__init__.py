"""Tests proving the Foundation issue: pilot dataset, stores, projection, inv1-inv19."""
