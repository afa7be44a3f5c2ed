"""Peers' amplification bounds re-derived with their conditions: closed-form baselines, published values, the
privacy blanket (FLAME, BBGN19), Wang et al.'s variation ratio, Su–Cheng–Wang, Echo of Neighbors."""
