"""How one setting is declared and read: its variable, the `Settings` field it fills, its kind
(type, range, default) and what it means, in one `Setting(...)` line.

`api.settings.SETTINGS` lists every setting this way; `Settings.from_environ` reads them in one
loop and `api.settings_doc` renders the same list as docs/settings.md. A kind parses the raw
text (an unset or empty variable means the default) and raises `SettingsError` naming the
variable and what it accepts.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Generic, TypeVar


class SettingsError(ValueError):
    """A setting is missing or invalid; the message names it and says what it accepts."""


class Secret(str):
    """A string that does not show itself in reprs or logs."""

    def __repr__(self) -> str:
        return "Secret('**********')"


T = TypeVar("T")
N = TypeVar("N", int, float)


class Kind(Generic[T]):
    """A setting's type: how its text is parsed, its default, and how both read in the docs."""

    default: T

    def parse(self, key: str, raw: str) -> T:
        raise NotImplementedError

    def accepts(self) -> str:
        """What a value may be, for docs/settings.md."""
        raise NotImplementedError

    def shows_default(self) -> str:
        return "unset" if self.default is None else f"`{self.default}`"


@dataclass(frozen=True)
class Text(Kind[str | None]):
    default: str | None = None

    def parse(self, key: str, raw: str) -> str | None:
        return raw

    def accepts(self) -> str:
        return "text"


@dataclass(frozen=True)
class SecretText(Kind[Secret | None]):
    default: None = None
    min_length: int = 0  # a token a client presents: long enough that guessing it is hopeless

    def parse(self, key: str, raw: str) -> Secret | None:
        if len(raw) < self.min_length:
            raise SettingsError(
                f"{key} must be at least {self.min_length} characters; generate one with "
                "`python -c 'import secrets; print(secrets.token_urlsafe(32))'`."
            )
        return Secret(raw)

    def accepts(self) -> str:
        at_least = f", at least {self.min_length} characters" if self.min_length else ""
        return f"text (secret: never logged{at_least})"


@dataclass(frozen=True)
class Url(Kind[str | None]):
    default: None = None
    schemes: tuple[str, ...] = ("http", "https")
    # A URL that may carry a password (`redis://:secret@host`) is not quoted back.
    quoted: bool = True

    def parse(self, key: str, raw: str) -> str | None:
        if not raw.startswith(tuple(f"{scheme}://" for scheme in self.schemes)):
            shown = f"={raw!r}" if self.quoted else ""
            raise SettingsError(f"{key}{shown} is not {self.accepts()}")
        return raw

    def accepts(self) -> str:
        names = [f"{scheme}://" for scheme in self.schemes]
        return f"an {', '.join(names[:-1])} or {names[-1]} URL"


@dataclass(frozen=True)
class FilePath(Kind[Path | None]):
    default: None = None

    def parse(self, key: str, raw: str) -> Path | None:
        return Path(raw).expanduser()

    def accepts(self) -> str:
        return "a path"


@dataclass(frozen=True)
class FilePaths(Kind[tuple[Path, ...] | None]):
    """One path or several, comma-separated (a path holding a comma cannot be named); unset:
    None. Set but naming none is an error."""

    default: None = None

    def parse(self, key: str, raw: str) -> tuple[Path, ...] | None:
        parts = tuple(dict.fromkeys(part.strip() for part in raw.split(",") if part.strip()))
        if not parts:
            raise SettingsError(f"{key} must name at least one file, comma-separated")
        return tuple(Path(part).expanduser() for part in parts)

    def accepts(self) -> str:
        return "paths, comma-separated"


@dataclass(frozen=True)
class Choice(Kind[str | None]):
    choices: tuple[str, ...]
    default: str | None

    def parse(self, key: str, raw: str) -> str | None:
        if raw not in self.choices:
            raise SettingsError(f"{key}={raw!r} is not one of: {', '.join(self.choices)}")
        return raw

    def accepts(self) -> str:
        return " \\| ".join(f"`{choice}`" for choice in self.choices)


@dataclass(frozen=True)
class _Bounded(Kind[N | None]):
    default: N | None
    low: N
    high: N
    # Set by each subclass: the type the text is parsed as, and what a value is called.
    number_type: ClassVar[type[Any]]
    noun: ClassVar[str]

    def parse(self, key: str, raw: str) -> N | None:
        try:
            value: N = self.number_type(raw)
        except ValueError:
            raise SettingsError(f"{key}={raw!r} is not {self.noun}") from None
        if not self.low <= value <= self.high:
            raise SettingsError(f"{key}={value} must be between {self.low} and {self.high}")
        return value

    def accepts(self) -> str:
        return f"{self.noun}, {self.low:,} to {self.high:,}"


@dataclass(frozen=True)
class Integer(_Bounded[int]):
    number_type = int
    noun = "an integer"


@dataclass(frozen=True)
class Number(_Bounded[float]):
    number_type = float
    noun = "a number"


@dataclass(frozen=True)
class Flag(Kind[bool]):
    """A boolean; unset, it is `default`, or the value of the setting `follows` names, or (with
    `off_when`) false when the setting `off_when` names is set."""

    default: bool = False
    follows: str | None = None
    off_when: str | None = None

    def parse(self, key: str, raw: str) -> bool:
        if raw.lower() in ("1", "true", "yes", "on"):
            return True
        if raw.lower() in ("0", "false", "no", "off"):
            return False
        raise SettingsError(f"{key}={raw!r} is not a boolean (true/false)")

    def accepts(self) -> str:
        return "`true` \\| `false`"

    def shows_default(self) -> str:
        if self.off_when:
            return f"`{str(self.default).lower()}`; `false` when `{self.off_when}` is set"
        return f"= `{self.follows}`" if self.follows else f"`{str(self.default).lower()}`"


@dataclass(frozen=True)
class Names(Kind[tuple[str, ...]]):
    """A comma-separated list of names; `choices`, when given, are the lists it may be (in
    any order); `always` are names the value holds whatever is set."""

    default: tuple[str, ...] = ()
    choices: tuple[tuple[str, ...], ...] = ()
    always: tuple[str, ...] = ()

    def parse(self, key: str, raw: str) -> tuple[str, ...]:
        chosen = tuple(part.strip() for part in raw.split(",") if part.strip())
        if not chosen:
            return self.default
        if self.choices:
            for choice in self.choices:
                if sorted(chosen) == sorted(choice) and len(set(chosen)) == len(chosen):
                    return choice
            accepted = " or ".join(",".join(choice) for choice in self.choices)
            raise SettingsError(f"{key}={','.join(chosen)!r} is not one of: {accepted}")
        return tuple(dict.fromkeys(self.always + chosen))

    def accepts(self) -> str:
        if self.choices:
            return " \\| ".join(f"`{','.join(choice)}`" for choice in self.choices)
        return "names, comma-separated" + (", added to the default" if self.always else "")

    def shows_default(self) -> str:
        return f"`{','.join(self.default)}`" if self.default else "none"


@dataclass(frozen=True)
class Workspaces(Kind[tuple[str, ...] | None]):
    """A comma-separated list of workspace names; unset: None. Set but naming none is an
    error, so a typo never grants nothing (or everything) silently."""

    default: None = None

    def parse(self, key: str, raw: str) -> tuple[str, ...] | None:
        names = tuple(dict.fromkeys(name.strip() for name in raw.split(",") if name.strip()))
        if not names:
            raise SettingsError(f"{key} must name at least one workspace, comma-separated")
        return names

    def accepts(self) -> str:
        return "workspace names, comma-separated"


# An origin as a browser serialises it in `Origin` (RFC 6454 §6.2): scheme, lower-case host,
# and the port only when it is not the scheme's default.
_ORIGIN = re.compile(
    r"(?P<scheme>https?)://"
    r"(?P<host>\[[0-9a-f:.]+\]|[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*)"
    r"(?::(?P<port>[1-9][0-9]{0,4}))?"
)
_DEFAULT_PORTS = {"http": 80, "https": 443}


def is_exact_origin(origin: str) -> bool:
    """Whether `origin` is written exactly as a browser sends it, so it can ever match.

    >>> [is_exact_origin(o) for o in ("https://app.example.com", "http://127.0.0.1:5173")]
    [True, True]
    >>> [is_exact_origin(o) for o in ("*", "https://app.example.com/", "https://a.test:443")]
    [False, False, False]
    """
    match = _ORIGIN.fullmatch(origin)
    if match is None:
        return False
    port = match["port"]
    return port is None or (int(port) <= 65535 and int(port) != _DEFAULT_PORTS[match["scheme"]])


@dataclass(frozen=True)
class Origins(Kind[tuple[str, ...]]):
    """Exact web origins (`scheme://host[:port]`), comma-separated; unset: none. A browser's
    `Origin` header is compared with each as written, so anything else (a path, a wildcard,
    a trailing `/`, an upper-case letter, the scheme's default port) could never match and is
    refused rather than ignored."""

    default: tuple[str, ...] = ()

    def parse(self, key: str, raw: str) -> tuple[str, ...]:
        origins = tuple(dict.fromkeys(item.strip() for item in raw.split(",") if item.strip()))
        for origin in origins:
            if "*" in origin:
                raise SettingsError(
                    f"{key}: {origin!r} is a wildcard; list each origin that may call the "
                    "service, such as https://app.example.com"
                )
            if not is_exact_origin(origin):
                raise SettingsError(
                    f"{key}: {origin!r} is not an exact origin such as https://app.example.com"
                    " (http or https, lower-case host, a port only when not the scheme's"
                    " default; no path, no trailing /, no user)"
                )
        return origins

    def accepts(self) -> str:
        return "exact origins (`https://app.example.com`), comma-separated"

    def shows_default(self) -> str:
        return "none"


@dataclass(frozen=True)
class Setting:
    """One environment variable: the `Settings` attribute it fills, its kind, what it means."""

    variable: str
    field: str
    kind: Kind[Any]
    description: str

    def read(self, environ: Mapping[str, str], read_so_far: Mapping[str, object]) -> object:
        """The value in `environ`, or the default (an unset and an empty variable alike).
        `read_so_far`: the values of the settings declared before, by variable."""
        raw = environ.get(self.variable)
        if raw is not None and raw != "":
            return self.kind.parse(self.variable, raw)
        if isinstance(self.kind, Flag) and self.kind.follows is not None:
            return read_so_far[self.kind.follows]
        if isinstance(self.kind, Flag) and self.kind.off_when is not None:
            return self.kind.default and read_so_far[self.kind.off_when] is None
        return self.kind.default
