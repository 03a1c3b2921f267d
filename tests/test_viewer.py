"""Body graphics and 'fmu-mbs animate' without a browser: the scene data, CSV dialects, mesh files, movies."""

from __future__ import annotations

import base64
import json
import math
import struct
from pathlib import Path

import numpy as np
import pytest

from fmu_mbs import ModelError, compile_model, load_model
from fmu_mbs.adapters.cli import main
from fmu_mbs.adapters.recording import write_trajectory
from fmu_mbs.adapters.viewer import marker_poses, read_result, scene
from fmu_mbs.analyses.assembly import assemble
from fmu_mbs.analyses.trajectory import Trajectory
from fmu_mbs.model import ModelBuilder, model_from_dict, model_to_dict
from fmu_mbs.model.graphics import BODY_PREFIX, default_graphics, read_mesh

MODELS = Path(__file__).resolve().parents[1] / "models"
CATALOGUE = sorted(MODELS.glob("*.json"))


def _assembled_csv(path: Path, model_path: Path) -> Path:
    cm = compile_model(load_model(model_path))
    a = assemble(cm)
    write_trajectory(path, cm, Trajectory.single(a.t, a.q, a.qd, a.qdd, a.lam))
    return path


@pytest.mark.parametrize("model_path", CATALOGUE, ids=lambda p: p.stem)
def test_every_catalogue_model_animates(tmp_path, model_path):
    """Every model shows something, each graphic sits where its marker's channels put it."""
    csv = _assembled_csv(tmp_path / "a.csv", model_path)
    html = tmp_path / "a.html"
    assert main(["animate", str(model_path), str(csv), "--out", str(html)]) == 0
    text = html.read_text()
    assert "import(URL.createObjectURL" in text and "http://" not in text.split("/*", 1)[0]
    data = json.loads(text.split('<script id="scene-data" type="application/json">', 1)[1].split("</script>", 1)[0])
    assert data["graphics"]
    res = read_result(csv)
    model = load_model(model_path)
    for g in data["graphics"]:
        r = np.frombuffer(base64.b64decode(data["markers"][g["marker"]]["r"]), np.float32).reshape(-1, 3)
        if not g["marker"].startswith(BODY_PREFIX):
            column = res.columns.get(f"{g['marker']}.r[1]")
            if column is not None:
                assert r[0, 0] == pytest.approx(column[0], abs=1e-6)
    for b in model.bodies:   # a body's centre of mass is its initial position after assembly of a consistent model
        key = BODY_PREFIX + b.name
        if key in data["markers"]:
            r = np.frombuffer(base64.b64decode(data["markers"][key]["r"]), np.float32)
            p = np.zeros(3)
            p[:len(b.position)] = b.position
            assert np.allclose(r[:3], p, atol=1e-3), b.name


def test_body_centre_from_a_rotated_marker():
    """@body pose: from marker pose and the marker's place on the body (planar arm at 30 degrees)."""
    b = ModelBuilder("arm", 2)
    b.add_planar_body("arm", 1.0, 0.1, position=(0.5 * math.cos(0.5), 0.5 * math.sin(0.5)), angle=0.5)
    b.add_marker("pivot")
    b.add_marker("eye", "arm", position=(-0.5, 0.0), angle=0.3)
    b.add_joint("pin", "revolute", "pivot", "eye")
    model = b.build()
    a = 0.5 + 0.3                                              # marker frame angle in the world
    cols = {"time": np.array([0.0]), "eye.r[1]": np.zeros(1), "eye.r[2]": np.zeros(1), "eye.r[3]": np.zeros(1),
            "eye.q[1]": np.array([math.cos(a / 2)]), "eye.q[2]": np.zeros(1), "eye.q[3]": np.zeros(1),
            "eye.q[4]": np.array([math.sin(a / 2)])}
    from fmu_mbs.adapters.viewer import Result
    p, q = marker_poses(model, Result(cols), ["@arm"])["@arm"]
    assert p[0] == pytest.approx([0.5 * math.cos(0.5), 0.5 * math.sin(0.5), 0.0])
    assert 2 * math.atan2(q[0, 3], q[0, 0]) == pytest.approx(0.5)


def test_fmpy_csv_with_quoted_names_and_a_units_row(tmp_path):
    from fmpy.util import write_csv
    t = np.linspace(0.0, 1.0, 5)
    arr = np.zeros(5, dtype=[("time", float), ("P1.r[1]", float)])
    arr["time"], arr["P1.r[1]"] = t, np.cos(t)
    write_csv(tmp_path / "f.csv", arr)
    assert (tmp_path / "f.csv").read_text().startswith('"time","P1.r[1]"')
    res = read_result(tmp_path / "f.csv")
    assert np.allclose(res.columns["P1.r[1]"], np.cos(t))
    (tmp_path / "u.csv").write_text("time,P1.r[1]\ns,m\n0.0,1.0\n0.5,2.0\n")
    res = read_result(tmp_path / "u.csv")
    assert res.units == {"time": "s", "P1.r[1]": "m"} and list(res.columns["P1.r[1]"]) == [1.0, 2.0]


def test_missing_pose_channels_are_named(tmp_path, capsys):
    (tmp_path / "e.csv").write_text("time,energy.total\n0.0,1.0\n")
    assert main(["animate", str(MODELS / "pendulum.json"), str(tmp_path / "e.csv")]) == 1
    err = capsys.readouterr().err
    assert "no pose channels" in err and "P1" in err and "pivot" not in err   # ground markers are fixed


def test_unknown_trace_marker_gets_close_matches(tmp_path, capsys):
    csv = _assembled_csv(tmp_path / "a.csv", MODELS / "pendulum.json")
    assert main(["animate", str(MODELS / "pendulum.json"), str(csv), "--trace", "P2"]) == 1
    assert "did you mean P1" in capsys.readouterr().err


def _tetrahedron():
    v = [(0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)]
    return v, [(0, 2, 1), (0, 1, 3), (0, 3, 2), (1, 2, 3)]


def test_mesh_files_stl_binary_ascii_and_obj(tmp_path):
    v, tris = _tetrahedron()
    binary = b"\0" * 80 + struct.pack("<I", len(tris))
    for t in tris:
        binary += struct.pack("<12fH", 0, 0, 0, *[c for i in t for c in v[i]], 0)
    (tmp_path / "b.stl").write_bytes(binary)
    (tmp_path / "a.stl").write_text("solid t\n" + "".join(
        "facet normal 0 0 0\nouter loop\n" + "".join(f"vertex {' '.join(map(str, v[i]))}\n" for i in t)
        + "endloop\nendfacet\n" for t in tris) + "endsolid t\n")
    (tmp_path / "c.obj").write_text("".join(f"v {x} {y} {z}\n" for x, y, z in v)
                                    + "".join(f"f {a + 1} {b + 1} {c + 1}\n" for a, b, c in tris))
    for name in ("b.stl", "a.stl", "c.obj"):
        verts, faces = read_mesh(tmp_path / name, scale=0.001)
        assert len(verts) == 4 and len(faces) == 4, name
        assert sorted(map(tuple, verts)) == sorted(tuple(0.001 * c for c in p) for p in v)
        assert {tuple(verts[i]) for f in faces for i in f} == {tuple(x) for x in verts}
    d = json.loads((MODELS / "pendulum.json").read_text())
    d["graphics"] = [{"name": "hull", "marker": "P1", "kind": "mesh", "file": "b.stl", "scale": 0.001}]
    (tmp_path / "m.json").write_text(json.dumps(d))
    csv = _assembled_csv(tmp_path / "r.csv", tmp_path / "m.json")
    data = scene(load_model(tmp_path / "m.json"), read_result(csv), base=tmp_path)
    assert len(base64.b64decode(data["graphics"][0]["triangles"])) == 4 * 3 * 4


def test_graphics_in_the_model_file_round_trip_and_are_checked():
    d = json.loads((MODELS / "pendulum.json").read_text())
    model = model_from_dict(d)
    assert [g.kind for g in model.graphics] == ["sphere", "link", "box"]
    assert model_from_dict(model_to_dict(model)) == model
    d["graphics"] += [{"name": "g1", "marker": "P1", "kind": "cube", "dimensions": [1.0]},
                      {"name": "g2", "marker": "nowhere", "kind": "link", "dimensions": [0.1]},
                      {"name": "g3", "marker": "P1", "kind": "sphere", "dimensions": [-1.0], "color": "red"}]
    with pytest.raises(ModelError) as err:
        model_from_dict(d)
    text = str(err.value)
    for needle in ("graphic 'g1': 'kind'", "graphic 'g2': 'marker'", "graphic 'g2': a link needs 'to_marker'",
                   "graphic 'g3': 'dimensions'", "graphic 'g3': 'color'"):
        assert needle in text


def test_default_graphics_cover_every_body():
    for path in CATALOGUE:
        model = load_model(path)
        drawn = {g.marker for g in default_graphics(model, 0.01)}
        body_of = {m.name: m.body for m in model.markers}
        for b in model.bodies:
            assert BODY_PREFIX + b.name in drawn or any(body_of.get(m) == b.name for m in drawn), (path.stem, b.name)


def test_gif_has_the_frames_of_its_duration(tmp_path):
    pytest.importorskip("matplotlib")
    from PIL import Image
    csv = tmp_path / "p.csv"
    (tmp_path / "p.csv").write_text("time,P1.r[1],P1.r[2],P1.r[3],P1.q[1],P1.q[2],P1.q[3],P1.q[4]\n" + "".join(
        f"{t},{math.cos(t)},{-math.sin(t)},0,1,0,0,0\n" for t in np.linspace(0.0, 1.0, 101)))
    gif = tmp_path / "p.gif"
    assert main(["animate", str(MODELS / "pendulum.json"), str(csv), "--gif", str(gif), "--fps", "5",
                 "--speed", "0.5"]) == 0
    assert Image.open(gif).n_frames == int(1.0 / 0.5 * 5) + 1


def test_force_arrows_joint_reaction_and_contact():
    """Arrows: a joint's reaction F at marker_j; a contact's fn along the plane normal plus its friction ft."""
    from fmu_mbs.adapters.viewer import Result
    model = load_model(MODELS / "bouncing_ball.json")
    n = 3
    cols = {"time": np.arange(n, dtype=float), "impact.fn": np.array([0.0, 10.0, 4.0]),
            "impact.ft[1]": np.array([0.0, 1.0, -2.0]), "impact.ft[2]": np.zeros(n), "impact.ft[3]": np.zeros(n)}
    for m in ("centre", "origin"):
        for k, v in enumerate((0.0, 0.0, 0.1 if m == "centre" else 0.0), 1):
            cols[f"{m}.r[{k}]"] = np.full(n, v)
        for k, v in enumerate((1.0, 0.0, 0.0, 0.0), 1):
            cols[f"{m}.q[{k}]"] = np.full(n, v)
    data = scene(model, Result(cols))
    (contact,) = data["vectors"]
    F = np.frombuffer(base64.b64decode(contact["F"]), np.float32).reshape(n, 3)
    assert contact["at"] == "centre"
    assert np.allclose(F, np.column_stack([cols["impact.ft[1]"], np.zeros(n), cols["impact.fn"]]))
    assert contact["scale"] == pytest.approx(1.0 / math.hypot(10.0, 1.0))
    csv_pendulum = {"time": np.zeros(1), **{f"P1.r[{k}]": np.array([v]) for k, v in enumerate((1.0, 0.0, 0.0), 1)},
                    **{f"P1.q[{k}]": np.array([v]) for k, v in enumerate((1.0, 0.0, 0.0, 0.0), 1)},
                    "rod.F[1]": np.array([-3.0]), "rod.F[2]": np.array([4.0]), "rod.F[3]": np.zeros(1)}
    (reaction,) = scene(load_model(MODELS / "pendulum.json"), Result(csv_pendulum))["vectors"]
    assert reaction["at"] == "P1" and reaction["scale"] == pytest.approx(1.0 / 5.0)
    assert np.allclose(np.frombuffer(base64.b64decode(reaction["F"]), np.float32), [-3.0, 4.0, 0.0])


def _mp4_video_samples(path) -> tuple[int, float]:
    """(frames, duration in s) of the video track of an MP4 file, read from its boxes (ISO/IEC 14496-12: the
    track's mdhd timescale and duration, its stsz sample count), independent of matplotlib and ffmpeg."""
    data = Path(path).read_bytes()

    def boxes(lo, hi):
        while lo + 8 <= hi:
            size, kind = struct.unpack(">I4s", data[lo:lo + 8])
            head = 8
            if size == 1:
                size, head = struct.unpack(">Q", data[lo + 8:lo + 16])[0], 16
            yield kind.decode("latin-1"), lo + head, lo + (size or hi - lo)
            lo += size or hi - lo

    def find(lo, hi, *path):
        for kind, a, b in boxes(lo, hi):
            if kind == path[0]:
                return (a, b) if len(path) == 1 else find(a, b, *path[1:])
        return None

    moov = find(0, len(data), "moov")
    for kind, a, b in boxes(*moov):
        if kind != "trak":
            continue
        hdlr = find(a, b, "mdia", "hdlr")
        if data[hdlr[0] + 8:hdlr[0] + 12] != b"vide":
            continue
        mdhd = find(a, b, "mdia", "mdhd")
        version = data[mdhd[0]]
        if version == 1:
            timescale, duration = struct.unpack(">IQ", data[mdhd[0] + 20:mdhd[0] + 32])
        else:
            timescale, duration = struct.unpack(">II", data[mdhd[0] + 12:mdhd[0] + 20])
        stsz = find(a, b, "mdia", "minf", "stbl", "stsz")
        count = struct.unpack(">I", data[stsz[0] + 8:stsz[0] + 12])[0]
        return count, duration / timescale
    raise AssertionError("no video track in the MP4 file")


def test_mp4_has_the_frames_of_its_duration(tmp_path):
    pytest.importorskip("matplotlib")
    from matplotlib import animation
    if not animation.writers.is_available("ffmpeg"):
        pytest.skip("the ffmpeg program is not installed (apt-get install ffmpeg): MP4 output cannot be written "
                    "here; test_mp4_without_ffmpeg_is_a_clear_error covers that case")
    csv = tmp_path / "p.csv"
    csv.write_text("time,P1.r[1],P1.r[2],P1.r[3],P1.q[1],P1.q[2],P1.q[3],P1.q[4]\n" + "".join(
        f"{t:g},{math.sin(t):.6f},{-math.cos(t):.6f},0,1,0,0,0\n" for t in np.linspace(0.0, 1.0, 11)))
    mp4 = tmp_path / "p.mp4"
    assert main(["animate", str(MODELS / "pendulum.json"), str(csv), "--mp4", str(mp4), "--fps", "10"]) == 0
    frames, duration = _mp4_video_samples(mp4)
    assert frames == int(1.0 * 10) + 1                   # one movie frame per 1/fps of simulated time, both ends
    assert duration == pytest.approx(frames / 10.0, rel=1e-3)


def test_mp4_without_ffmpeg_is_a_clear_error(tmp_path, capsys, monkeypatch):
    pytest.importorskip("matplotlib")
    from matplotlib import animation
    monkeypatch.setattr(animation.writers, "is_available", lambda name: False)
    csv = tmp_path / "p.csv"
    csv.write_text("time,P1.r[1],P1.r[2],P1.r[3],P1.q[1],P1.q[2],P1.q[3],P1.q[4]\n0,1,0,0,1,0,0,0\n0.2,0,-1,0,1,0,0,0\n")
    status = main(["animate", str(MODELS / "pendulum.json"), str(csv), "--mp4", str(tmp_path / "p.mp4"), "--fps", "5"])
    assert status == 1 and "needs the ffmpeg program" in capsys.readouterr().err


def test_animate_a_cli_result_with_units(tmp_path):
    csv, html = tmp_path / "sim.csv", tmp_path / "sim.html"
    assert main(["simulate", str(MODELS / "pendulum.json"), "--t-end", "0.05", "--step", "1e-3", "--units",
                 "--out", str(csv), "--progress", "never"]) == 0
    assert main(["animate", str(MODELS / "pendulum.json"), str(csv), "--out", str(html), "--max-frames", "20"]) == 0
    data = json.loads(html.read_text().split('type="application/json">', 1)[1].split("</script>", 1)[0])
    t = np.frombuffer(base64.b64decode(data["t"]), np.float64)
    assert data["n"] == 20 and t[0] == 0.0 and t[-1] == pytest.approx(0.05)     # thinned evenly, ends kept
