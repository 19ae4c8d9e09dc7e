"""What a run tells: the report and its closing summary, and the per-candidate trace."""
