"""The lowest layer: input validation (:mod:`~gspa.util.validate`) and atomic writes (:mod:`~gspa.util.atomic`)."""
