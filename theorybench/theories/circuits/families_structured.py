"""Circuit builders for the retrieval, arithmetic, graph and Dyck families."""
