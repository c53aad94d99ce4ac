"""Pipeline stages. Stages never import each other; they talk through the packet."""
