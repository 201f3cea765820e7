"""The API's routes, one module per family: AP-1 inputs and seals, AP-1 scoring, APx,
conformance, document validation, and every vector operation.

May import ``apconform.api.routing``, ``typed``, ``problems`` and the protocol packages.
"""
