"""Dyck languages: well-nested brackets of k types, bounded depth or not."""
