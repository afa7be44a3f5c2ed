"""The certified shuffle accountant: clone laws and their FFT engine with its error model, reduced pairs, cells,
enumerated outcomes, composition over rounds, lower bounds, and the entry point personalized_pair."""
