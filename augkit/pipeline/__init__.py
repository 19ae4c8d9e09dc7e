"""Pipelines: composing steps, building them from a spec string, calibrating, running a batch with
its time limit, checking outputs, and what a run asks of a pipeline."""
