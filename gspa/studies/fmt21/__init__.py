"""Studies of Part II: Feldman–McMillan–Talwar's amplification by shuffling ("Hiding among the clones",
FOCS 2021) as told by C. Canonne's DifferentialPrivacy.org post "Privacy Doona" (2022), cited below as
"the blog" with its equation numbers."""
