"""What the site and the command line ask of the engine, computed over the catalog."""
