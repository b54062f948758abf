"""Generic helpers every layer may use; they know nothing of earshot's domain.

::

    aio       race(a coroutine, an abort event)
    dirs      config_dir(): where settings, auth and memory files live
    errors    UserError, the base of every failure a person can fix
    json      JSONValue, JSONObject
    jsonfile  JSON object files: read with errors naming the file, written atomically
"""
