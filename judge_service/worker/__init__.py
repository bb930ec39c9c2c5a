"""Workers: the code that owns sandbox pools and judges chunks of a batch.

``celery_app`` is the configuration both sides share (the API sends by task name);
``tasks`` the unit of work; ``runner`` a Celery worker process; ``inprocess`` the same work
in the API's process when no broker is configured.
"""
