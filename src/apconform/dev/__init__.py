"""Tools for the kit's maintainers: generation and drift checks. Needs the `dev` extra (LinkML)."""

__all__: list[str] = []
