"""The words the benchmark graph and its queries are made of.

Entity names are built from these lists the way extracted names look (people, organisations,
places, products, events), so a full-text query has from zero to a few hundred hits, and
two different queries rarely have the same ones. Queries draw from the same lists.
"""

from __future__ import annotations

import random


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


FIRST_NAMES = _words(
    "Ada Alan Alice Amara Anders Anika Arjun Astrid Beatrix Bruno Carla Cedric Chen Clara "
    "Dalia Daniel Dmitri Edith Elena Emeka Emil Farah Felix Fiona Gareth Greta Hana Hugo "
    "Ines Ingrid Isaac Ivan Jamal Jana Jonas Julia Kai Karim Keiko Lars Leila Lena Leon "
    "Lucia Magnus Maia Marco Marta Mateo Mei Milan Mira Nadia Nils Nora Olga Omar Oskar "
    "Paola Pavel Petra Priya Rafael Rania Ravi Rosa Ruth Samir Sara Selma Silas Sofia "
    "Stefan Tariq Thea Tomas Ursula Valentin Vera Viktor Wanda Yara Yusuf Zara Zoran"
)

LAST_NAMES = _words(
    "Abbott Achebe Alvarez Andersen Arnaud Bakker Barros Becker Bianchi Brennan Castillo "
    "Chandra Costa Dahl Delgado Duarte Eriksen Falk Ferreira Fischer Foster Galloway "
    "Garcia Grant Gruber Haas Halvorsen Hartmann Hayes Horvat Ibrahim Ishikawa Jansen "
    "Jensen Kaplan Kowalski Kramer Lachance Lindqvist Lopes Lovelace Madsen Marchetti "
    "Mbeki Mendes Moreau Nakamura Navarro Nielsen Novak Okafor Olsen Osei Park Pereira "
    "Petrov Quinn Rahman Reyes Richter Rossi Sato Schmidt Silva Sokolov Strand Tanaka "
    "Thorne Torres Ueda Varga Vasquez Vogel Wagner Walsh Weber Winter Yilmaz Zeller"
)

ORGANIZATION_ROOTS = _words(
    "Acme Apex Arcadia Atlas Aurora Beacon Birch Bluewater Boreal Cascade Cedar Cobalt "
    "Compass Copper Crescent Delta Ember Evergreen Falcon Fjord Granite Harbor Helix "
    "Horizon Ironwood Juniper Keystone Lighthouse Lumen Maple Meridian Monarch Nimbus "
    "Northwind Oakridge Onyx Orion Pinnacle Polaris Quarry Redwood Riverstone Saffron "
    "Sentinel Sierra Solstice Summit Tidewater Timber Trident Vanguard Vertex Willow Zenith"
)

ORGANIZATION_KINDS = _words(
    "Shipping Logistics Analytics Mining Foods Energy Pharma Robotics Textiles Insurance "
    "Freight Dynamics Systems Capital Maritime Forestry Telecom Biotech Aerospace Holdings"
)

ORGANIZATION_SUFFIXES = ("Corp", "Ltd", "Group", "Labs", "Partners", "Inc", "Co", "Trust")

PLACE_PREFIXES = ("Port", "North", "South", "East", "West", "Lake", "Mount", "New", "Upper", "Fort")

PLACE_ROOTS = _words(
    "Harrow Elmwood Vesper Calder Dunmore Ashford Brackley Corrin Drayton Ellery Fenwick "
    "Glenmore Halden Ingleby Kestrel Larkspur Morrow Netherby Oakham Pemberton Quillan "
    "Ravensworth Saltmarsh Thornbury Umber Valemont Wexford Yarrow Alderney Bramwell "
    "Carrick Dunleary Eskdale Farrowby Greystone Hollins Kilbride Lowther Marisco Norcross"
)

PRODUCT_NOUNS = _words(
    "Crane Drone Pump Turbine Sensor Valve Router Scanner Tractor Loader Reactor Battery "
    "Compressor Filter Beacon Winch Forklift Generator Inverter Gateway"
)

PRODUCT_MODELS = ("X100", "X200", "Mk2", "Mk3", "Pro", "Lite", "S", "Max", "One", "Plus")

EVENT_TOPICS = _words(
    "Harbor Safety Climate Finance Supply Chain Cargo Security Port Automation Customs "
    "Reform Fisheries Rail Freight Offshore Wind Cold Chain Container Standards Maritime Law "
    "Trade Compliance Fleet Electrification"
)

EVENT_KINDS = ("Summit", "Conference", "Inquiry", "Strike", "Merger", "Audit", "Forum", "Recall")

LABELS = ("Person", "Organization", "Location", "Product", "Event")

FILLER = _words(
    "the shipment was inspected at the quay before dawn and the manifest listed several "
    "containers of machine parts while the harbour master recorded delays caused by fog "
    "and a dispute over customs fees that the insurers later settled after an audit of "
    "the cargo records showed missing signatures on the bills of lading"
)


def entity_name(label: str, rng: random.Random) -> str:
    """A name of the kind extraction gives an entity of `label`."""
    if label == "Person":
        first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
        if rng.random() < 0.15:
            return f"{first} {rng.choice(FIRST_NAMES)[0]}. {last}"
        return f"{first} {last}"
    if label == "Organization":
        root = rng.choice(ORGANIZATION_ROOTS)
        if rng.random() < 0.2:
            return f"{rng.choice(LAST_NAMES)} & {rng.choice(LAST_NAMES)}"
        return f"{root} {rng.choice(ORGANIZATION_KINDS)} {rng.choice(ORGANIZATION_SUFFIXES)}"
    if label == "Location":
        root = rng.choice(PLACE_ROOTS)
        return f"{rng.choice(PLACE_PREFIXES)} {root}" if rng.random() < 0.6 else root
    if label == "Product":
        return (
            f"{rng.choice(ORGANIZATION_ROOTS)} {rng.choice(PRODUCT_NOUNS)}"
            f" {rng.choice(PRODUCT_MODELS)}"
        )
    year = rng.randrange(1998, 2026)
    return f"{year} {rng.choice(EVENT_TOPICS)} {rng.choice(EVENT_KINDS)}"


def passage_text(rng: random.Random, names: list[str]) -> str:
    """About 60 words of prose that names the entities mentioned in it."""
    start = rng.randrange(len(FILLER))
    words = [FILLER[(start + i) % len(FILLER)] for i in range(40 + rng.randrange(40))]
    if names:
        words.extend(["according", "to", *", ".join(names).split()])
    return " ".join(words).capitalize() + "."


def search_queries(count: int, seed: int) -> list[str]:
    """`count` distinct queries of the kinds a user types: a name, part of a name, a topic.

    Distinct so that no request is answered from the service's query-vector cache.
    """
    rng = random.Random(seed)
    found: dict[str, None] = {}
    makers = (
        lambda: f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}",
        lambda: rng.choice(LAST_NAMES),
        lambda: f"{rng.choice(ORGANIZATION_ROOTS)} {rng.choice(ORGANIZATION_KINDS)}",
        lambda: f"{rng.choice(PLACE_PREFIXES)} {rng.choice(PLACE_ROOTS)}",
        lambda: f"{rng.choice(ORGANIZATION_ROOTS)} {rng.choice(PRODUCT_NOUNS)}",
        lambda: f"{rng.choice(EVENT_TOPICS)} {rng.choice(EVENT_KINDS)}",
        lambda: f"{rng.choice(FIRST_NAMES)} {rng.choice(ORGANIZATION_ROOTS)} harbour",
    )
    attempts = 0
    while len(found) < count:
        attempts += 1
        if attempts > count * 1000:
            raise ValueError(f"the vocabulary cannot make {count} distinct queries")
        found.setdefault(rng.choice(makers)(), None)
    return list(found)
