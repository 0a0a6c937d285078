"""What the tests share: servers and clients, graph builders, the scope oracle, test embedders."""
