"""Graph tasks over edge lists of single-token edges: edge_exists and reachability."""
