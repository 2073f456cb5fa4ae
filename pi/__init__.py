"""The appliance: config, the table loop, the event store, the web pages and the command line."""
