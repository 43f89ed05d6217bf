"""The macros writers call from pages, one module per family; ``registry`` binds them to a page and checks
their arguments, ``families`` registers every one."""
