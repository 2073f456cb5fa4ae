"""Phone pages (Flask app factory)."""
