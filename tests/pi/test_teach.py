"""The host teaches a face from one throw under the camera ("these dice show 6"): the
emblem dice read right from then on, the book is saved beside the colours, and bad
requests change nothing."""
from __future__ import annotations

import numpy as np
import pytest

from pi.calibration import faces_path
from pi.table import Table
from pi.web import create_app
from vision.training import scenes


@pytest.fixture
def host(config, store):
    from vision.camera import SyntheticTable
    from vision.detector import Detector

    table = Table(config, store, camera=SyntheticTable(seed=1, tumble_frames=0), detector=Detector(), settler=None,
                  frame_interval=0.01)
    client = create_app(table, config, {"TESTING": True}).test_client()
    client.get("/")
    with client.session_transaction() as session:
        client.environ_base["HTTP_X_CSRF_TOKEN"] = session["csrf"]
    client.post("/host/login", data={"pin": config.host_pin})
    yield table, client
    table.stop()


def emblem_sixes(table, scene) -> list[int]:
    dice = table.camera.detector.detect(scene.image)
    faces = []
    for (x0, y0, x1, y1), face, _ in scene.labels:
        if face == 6:
            faces += [d.face for d in dice if x0 <= (d.box[0] + d.box[2]) / 2 <= x1 and y0 <= (d.box[1] + d.box[3]) / 2 <= y1]
    return faces


def test_the_host_teaches_a_face_from_one_throw(host, config):
    table, client = host
    rng = np.random.default_rng(5)
    throw = scenes.emblem_tray(rng, size=(960, 720), n=6, share=1.0, colour="blue")  # every die shows the emblem
    later = scenes.emblem_tray(rng, size=(960, 720), n=12, share=0.25, colour="blue")
    assert emblem_sixes(table, later).count(6) < 2  # the model alone reads them otherwise
    assert 'id="teach"' in client.get("/host", headers={"Accept-Language": "en"}).get_data(as_text=True)
    table.camera._latest = throw.image  # as the camera thread keeps it for the live view
    response = client.post("/host/teach", data={"face": "6"}, headers={"Accept": "application/json"})
    assert response.status_code == 200 and response.get_json()["ok"], response.get_data(as_text=True)
    assert faces_path(config).is_file()
    assert emblem_sixes(table, later).count(6) >= 2


def test_bad_teaching_requests_change_nothing(host, config):
    table, client = host
    for face in ("0", "7", "six", ""):
        response = client.post("/host/teach", data={"face": face}, headers={"Accept": "application/json"})
        assert not response.get_json()["ok"] and "1 to 6" in response.get_json()["error"]["en"]
    table.camera._latest = None  # no frame read yet
    response = client.post("/host/teach", data={"face": "6"}, headers={"Accept": "application/json"})
    assert "camera" in response.get_json()["error"]["en"]
    assert not faces_path(config).exists() and table.camera.detector.faces is None
