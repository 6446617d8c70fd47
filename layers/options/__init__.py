"""What layers take as options: activations, initializers, regularizers, constraints."""
