"""Resumable file jobs: the job folder of verified chunks, its lock, and where the output goes."""
