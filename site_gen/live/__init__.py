"""Watch mode and the preview server: the Builder kept alive.

In: file system events (``watch``, on watchdog) and HTTP requests (``serve``). Out: rebuilds
(``session.WatchSession`` drives a ``Builder``) and a local server that answers like GitHub
Pages and reloads the browser after each rebuild.
"""
