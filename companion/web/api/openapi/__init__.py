"""The API's OpenAPI 3.1 document, built from the rules cores' commands and served at
``/api/openapi.json``."""
