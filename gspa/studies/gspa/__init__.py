"""The study of E. Chen, Y. Cao, Y. Ge, "A Generalized Shuffle Framework for Privacy Amplification"
(AAAI 2024): its theorems as stated (:mod:`~.theorem2`: Theorems 2–4; :mod:`~.clt`: Lemmas 2–3), the
budget scenarios of Table 2 (:mod:`~.scenarios`), Figure 2's comparison (:mod:`~.comparison`), the
estimation of Algorithms 1–2 (:mod:`~.estimation`, Figure 3) and Algorithm 3's private SGD
(:mod:`~.private_sgd`, Figure 4)."""
