"""Running a pipeline over rows: batches, worker processes (dying with their parent), and termination."""
