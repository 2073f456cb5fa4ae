"""The appliance's log says what matters: a phone closing a page is not news (pi/appliance.py)."""
from __future__ import annotations

import inspect
import logging

import pytest
import waitress.channel

from pi import appliance

DISCONNECT = "Client disconnected while serving %s"


@pytest.fixture
def server_log():
    appliance._setup_logging()
    log = logging.getLogger("waitress")
    yield log
    log.removeFilter(appliance._ROUTINE_DISCONNECTS)


def test_waitress_logs_a_closed_page_in_the_words_the_appliance_demotes():
    assert f'"{DISCONNECT}"' in inspect.getsource(waitress.channel.HTTPChannel.service)


def test_a_closed_page_is_a_debug_message_and_waitress_warnings_and_errors_still_show(server_log, caplog):
    full = "total open connections reached the connection limit, no longer accepting new connections"
    with caplog.at_level(logging.INFO):
        server_log.info(DISCONNECT % "/events")
        server_log.warning(full)
        server_log.error("Exception while serving /seat/abc")
    assert [(r.levelname, r.getMessage()) for r in caplog.records] == [
        ("WARNING", full), ("ERROR", "Exception while serving /seat/abc")]
    caplog.clear()
    with caplog.at_level(logging.DEBUG, logger="waitress"):
        server_log.info(DISCONNECT % "/events")
    assert [(r.levelname, r.getMessage()) for r in caplog.records] == [
        ("DEBUG", "Client disconnected while serving /events")]


def test_setting_up_the_log_twice_adds_the_filter_once(server_log):
    appliance._setup_logging()
    assert server_log.filters.count(appliance._ROUTINE_DISCONNECTS) == 1
