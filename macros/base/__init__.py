"""The ground floor every other folder of macros/ stands on: errors, languages, front matter, page links."""
