"""The citation checker: does a cited page say what the answer claims with the citation?

Pure logic on core types, no I/O of its own: :mod:`.claims` reads each citation's claim from a
response, :mod:`.text` and :mod:`.sentences` normalise and split the texts, :mod:`.facts` reads
their numbers, dates and names, :mod:`.match` finds the passage and gives the verdict, and
:mod:`.check` holds the entry points (``check_claim``, ``check_page``, ``verify_response``, which
reads pages through the reader function it is given). :mod:`.judge` describes the interface a
model-based judge of borderline passages would have.
"""
