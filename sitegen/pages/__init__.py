"""One module per page: the Markdown tables that page's executed blocks print.

A page imports its own module, for example::

    ```python exec="on"
    from sitegen.pages import frequencies
    print(frequencies.frequency_details(d_model=16))
    ```

Each function takes the parameters the page shows, asks `pe` (or a committed
benchmark record, through `sitegen.results`) for the numbers and returns
Markdown; no number is typed by hand.
"""
