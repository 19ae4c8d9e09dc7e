"""Reading and writing tables (CSV, TSV, JSON lines, Parquet, Excel), streamed or whole, with clear read errors."""
