"""The physics: memory, fit, links, decode speed, training. Functions take the specs and constants they use."""
