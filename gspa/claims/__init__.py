"""The claims of the papers as data: the rules that turn a computed value into a verdict (`rules`), the
domain a claim is stated for and the worst-case search over it (`domain`), and each study's table of its
claims (`table`): statement, place in the paper, paper value, rule, kind and domain, declared once."""
