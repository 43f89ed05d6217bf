"""What the site knows beside the catalog: the catalog loaded once per data state, the guide list, reading
times, translation status and the glossary."""
