"""Adapters between augkit's engine and the containers users hold: lists, pandas
DataFrames, Hugging Face datasets."""
