"""What a step is: the Augmenter and Filter bases, candidates and generated rows, the contexts a step
sees (labels, columns, protected spans), input texts, parameters and their checks."""
