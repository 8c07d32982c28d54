"""URL converters shared by the apps."""


class DatabaseIdConverter:
    """A row ID in a URL: up to 18 digits, so it always fits a 64-bit integer column.

    Longer numbers do not match the route (404) instead of overflowing the database.
    """

    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        """The ID as an int."""
        return int(value)

    def to_url(self, value: int) -> str:
        """The ID as URL text."""
        return str(value)

