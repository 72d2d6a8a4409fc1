"""Retrieval tasks: index, index_all/any/parity (query tokens) and k-hop induction."""
