"""Arithmetic tasks: binary addition."""
