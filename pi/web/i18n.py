"""Every string of the pages, in English and Japanese, and how a page picks its language.

The language is the ``lang`` cookie (set by the switch on every page), else the browser's
Accept-Language, else the config's default.
"""
from __future__ import annotations

from typing import Any, Mapping

LANGUAGES = ("en", "ja")

STRINGS: dict[str, dict[str, str]] = {
    "app_name": {"en": "dicetable", "ja": "dicetable"},
    "status_title": {"en": "Table", "ja": "テーブル"},
    "seat_title": {"en": "My seat", "ja": "自分の席"},
    "host_title": {"en": "Host", "ja": "ホスト"},
    "switch_language": {"en": "日本語", "ja": "English"},
    "no_game": {"en": "No game is running.", "ja": "ゲームは進行していません。"},
    "game": {"en": "Game", "ja": "ゲーム"},
    "round": {"en": "Round", "ja": "ラウンド"},
    "phase": {"en": "Phase", "ja": "フェーズ"},
    "scores": {"en": "Scores", "ja": "得点"},
    "seat": {"en": "Seat", "ja": "席"},
    "colour": {"en": "Colour", "ja": "色"},
    "points": {"en": "Points", "ja": "点"},
    "winner": {"en": "Winner", "ja": "勝者"},
    "due": {"en": "Now", "ja": "いま"},
    "last_throw": {"en": "Last throw", "ja": "直前の振り"},
    "no_roll": {"en": "No dice read yet.", "ja": "まだダイスを読んでいません。"},
    "camera_live": {"en": "Camera", "ja": "カメラ"},
    "camera_none": {"en": "No picture from the camera now.", "ja": "いまはカメラの映像がありません。"},
    "log": {"en": "Game log", "ja": "ゲームの記録"},
    "grammar": {"en": "Seat button", "ja": "席のボタン"},
    "secret_waiting": {
        "en": "Waiting for secret choices. Nothing is shown until every seat has locked.",
        "ja": "秘密の選択を待っています。全員がロックするまで何も表示されません。",
    },
    "secret_hint": {
        "en": "Secret: nobody sees your choice until every seat has locked. Once locked it cannot change.",
        "ja": "秘密: 全員がロックするまで誰にも見えません。ロック後は変更できません。",
    },
    "send": {"en": "Send", "ja": "送信"},
    "choose_action": {"en": "Choose what you do", "ja": "することを選んでください"},
    "read_layout": {"en": "Read my layout from the camera", "ja": "カメラで配置を読み取る"},
    "layout_hint": {"en": "Lay your dice flat in their rows under the camera (nothing else on the tray), let them settle, then tap.",
                    "ja": "カメラの下にダイスを段ごとに平らに並べ（トレイには他に何も置かない）、止まってから押してください。"},
    "layout_typed": {"en": "Or type the rows as JSON (bottom row first; null for an empty place).",
                     "ja": "または段を JSON で入力（下の段から、空きは null）。"},
    "claim": {"en": "This was my throw", "ja": "これは自分の振りです"},
    "claim_hint": {"en": "Several seats may throw now: tap before or after your throw so the camera's dice count as yours.",
                   "ja": "いまは複数の席が振れます。振る前か後に押すと、カメラのダイスがあなたの振りになります。"},
    "csrf_failed": {"en": "This form has expired or did not come from this table's pages; reload the page and try again.",
                    "ja": "このフォームは期限切れか、このテーブルのページから送られていません。再読み込みしてやり直してください。"},
    "locked_out": {"en": "Too many wrong PINs from this device: the host page is locked for 15 minutes.",
                   "ja": "この端末からのPINの誤りが多すぎます。ホスト画面は15分間ロックされます。"},
    "table_locked_out": {"en": "Too many wrong PINs at this table in the last hour: the host page is locked. "
                                 "Try again later, or restart dicetable on the Pi (sudo systemctl restart dicetable).",
                         "ja": "この1時間にPINの誤りが多すぎたため、ホスト画面はロックされています。しばらくしてから試すか、"
                               "Piで dicetable を再起動してください（sudo systemctl restart dicetable）。"},
    "reissue_links": {"en": "Reissue the seat links (the old ones stop working)",
                      "ja": "席のリンクを再発行（古いリンクは無効になります）"},
    "streams_full": {"en": "Every live-update slot is taken; this page updates every few seconds instead.",
                     "ja": "ライブ更新の枠がいっぱいです。このページは数秒ごとに更新します。"},
    "type_faces": {"en": "Type the faces of your dice the camera cannot read (a d10 shows 0-9)",
                   "ja": "カメラが読めないダイスの目を入力（d10は0〜9）"},
    "yes": {"en": "Yes", "ja": "はい"},
    "no": {"en": "No", "ja": "いいえ"},
    "rules_link": {"en": "Rules", "ja": "ルール"},
    "for_seat": {"en": "For {seat}", "ja": "{seat}の代わりに入力"},
    "camera_reads": {"en": "The camera reads them when it can.", "ja": "読めるときはカメラが読み取ります。"},
    "camera_saw": {"en": "The camera saw", "ja": "カメラの読み"},
    "picked_format": {
        "en": "The dice you picked up, as they showed before: faces of d6, d10 / d20 by name, e.g. 3 5 d20",
        "ja": "拾ったダイスを振る前の目で: d6は目、d10・d20は名前（例: 3 5 d20）",
    },
    "numbers_format": {"en": "Whole numbers {min} to {max} in order, separated by spaces, e.g. 6 2 5 1",
                       "ja": "{min}〜{max}の数を順にスペースで区切って（例: 6 2 5 1）"},
    "json_format": {"en": "JSON, as in the example", "ja": "例のとおり JSON で"},
    "history": {"en": "History", "ja": "履歴"},
    "stats": {"en": "Dice", "ja": "ダイス統計"},
    "no_history": {"en": "No finished game yet.", "ja": "終わったゲームはまだありません。"},
    "no_winner": {"en": "none", "ja": "なし"},
    "download_script": {"en": "Download the game script", "ja": "再生用のファイルをダウンロード"},
    "script_hint": {"en": "A file that dicetable replay plays back on a computer.",
                    "ja": "パソコンの dicetable replay で再生できるファイルです。"},
    "stats_hint": {
        "en": "Faces the camera read, per colour (freshly thrown dice only). The chi-square test says how "
              "likely a fair die is to scatter this much; it means something once every face is expected "
              "{n} times.",
        "ja": "カメラが読んだ目の色ごとの集計（振ったばかりのダイスのみ）。カイ二乗検定は公平なダイスでこれだけ偏る確率を示します。"
              "各目が{n}回ずつ期待できる回数から意味を持ちます。",
    },
    "no_stats": {"en": "The camera has read no throw yet.", "ja": "カメラはまだ振りを読んでいません。"},
    "rolls_seen": {"en": "{n} dice read", "ja": "{n}個読み取り"},
    "fairness_pending": {
        "en": "The fairness test needs {needed} dice of this kind ({left} more).",
        "ja": "公平性の検定には{needed}個必要です（あと{left}個）。",
    },
    "fair": {"en": "no sign of bias", "ja": "偏りは見られません"},
    "unfair": {"en": "likely biased (p < 0.01)", "ja": "偏りの可能性が高い（p < 0.01）"},
    "virtual_buttons": {"en": "Virtual seat buttons (demo)", "ja": "仮想の席ボタン（デモ）"},
    "virtual_hint": {
        "en": "Press = tap; hold the button to lock (like the real seat button).",
        "ja": "押す＝タップ、長押しでロック（本物の席ボタンと同じ）。",
    },
    "demo_throw": {"en": "Throw the dice that are due", "ja": "いま振るダイスを振る"},
    "demo_apply": {
        "en": "The camera misread it? Apply the dice as thrown",
        "ja": "カメラが読み違えた？ 振ったとおりのダイスで進める",
    },
    "led_off": {"en": "off", "ja": "消灯"},
    "led_open": {"en": "choosing", "ja": "選択中"},
    "led_entering": {"en": "entering", "ja": "入力中"},
    "led_locked": {"en": "locked", "ja": "ロック済み"},
    "led_revealed": {"en": "revealed", "ja": "公開"},
    "lock": {"en": "Lock my choice", "ja": "選択をロックする"},
    "locked_value": {"en": "Locked: {value}", "ja": "ロック済み: {value}"},
    "pin": {"en": "Host PIN", "ja": "ホストPIN"},
    "login": {"en": "Open the host page", "ja": "ホスト画面を開く"},
    "logout": {"en": "Log out", "ja": "ログアウト"},
    "wrong_pin": {"en": "Wrong PIN. Try again.", "ja": "PINが違います。もう一度入力してください。"},
    "too_many_pins": {
        "en": "Too many wrong PINs. Wait a minute and try again.",
        "ja": "PINの誤りが多すぎます。1分待ってから試してください。",
    },
    "start_game": {"en": "Start a game", "ja": "ゲームを始める"},
    "seats_playing": {"en": "Seats playing", "ja": "参加する席"},
    "seed": {"en": "Seed (optional)", "ja": "シード（任意）"},
    "correct_hint": {"en": "Tap a die to change its face, then tap the face it really shows.",
                     "ja": "直すダイスをタップしてから、本当の目をタップしてください。"},
    "waiting_next_game": {"en": "Waiting for the host to start the next game. This page opens it by itself; keep this link for the whole evening.",
                          "ja": "ホストが次のゲームを始めるのを待っています。始まるとこのページが自動で開きます。このリンクは今夜ずっと使えます。"},
    "more_settings": {"en": "More settings", "ja": "その他の設定"},
    "plays": {"en": "plays", "ja": "参加"},
    "start": {"en": "Start", "ja": "開始"},
    "seat_links": {"en": "Seat links (scan with the seat's phone)", "ja": "席のリンク（各席のスマホで読み取り）"},
    "correct_throw": {"en": "Correct the last throw", "ja": "直前の振りを修正"},
    "dice_format": {
        "en": "One die per entry: colour and face, e.g. red 3, blue 5 (a d10 or d20: red 7 d10)",
        "ja": "1個ずつ「色 目」で入力（例: red 3, blue 5。d10・d20 は red 7 d10）",
    },
    "apply": {"en": "Apply", "ja": "適用"},
    "undo": {"en": "Undo the last event", "ja": "最後の操作を取り消す"},
    "end_game": {"en": "End the game", "ja": "ゲームを終了する"},
    "put_away": {"en": "Put the finished game away", "ja": "終わったゲームを片付ける"},
    "calibrate": {"en": "Calibrate colours", "ja": "色の較正"},
    "calibrate_hint": {
        "en": "Throw only the dice of one colour, then capture it. Repeat for each colour, then save.",
        "ja": "1色のダイスだけを振って取り込みます。色ごとに繰り返してから保存してください。",
    },
    "capture": {"en": "Capture {colour}", "ja": "{colour}を取り込む"},
    "save_calibration": {"en": "Save calibration", "ja": "較正を保存"},
    "teach": {"en": "Teach a face", "ja": "目を教える"},
    "teach_hint": {
        "en": "Dice with a logo instead of pips? Put dice all showing that face under the camera, choose what "
              "the face counts as, and teach it (once per logo).",
        "ja": "目が模様（ロゴ）のダイスがあるときは、その面を上にしたダイスをカメラの下に置き、その面の目を選んで教えてください（ロゴごとに1回）。",
    },
    "teach_face": {"en": "These dice show", "ja": "このダイスの目"},
    "captured": {"en": "captured", "ja": "取り込み済み"},
    "done": {"en": "Done.", "ja": "完了しました。"},
    "error_title": {"en": "Something went wrong", "ja": "エラー"},
    "error_400": {"en": "The request was not understood.", "ja": "リクエストを理解できませんでした。"},
    "error_403": {"en": "You may not open this page.", "ja": "このページは開けません。"},
    "error_404": {"en": "There is no such page.", "ja": "そのページはありません。"},
    "error_405": {"en": "This page does not take that kind of request.", "ja": "この操作はできません。"},
    "error_413": {"en": "The request is too large.", "ja": "リクエストが大きすぎます。"},
    "error_429": {"en": "Too many attempts; wait a minute.", "ja": "試行が多すぎます。1分待ってください。"},
    "error_500": {
        "en": "The table hit an internal error; it is logged. Reload the page.",
        "ja": "内部エラーが起きました（記録済み）。ページを再読み込みしてください。",
    },
    "bad_seat_link": {
        "en": "This seat link is not valid (it may be from an earlier game). "
              "Scan your seat's QR code on the host page again.",
        "ja": "この席のリンクは無効です（前のゲームのものかもしれません）。"
              "ホスト画面で自分の席のQRコードをもう一度読み取ってください。",
    },
    "host_login_first": {"en": "Log in with the host PIN first.", "ja": "先にホストPINでログインしてください。"},
    "back": {"en": "Back to the table", "ja": "テーブルに戻る"},
    "bad_dice": {
        "en": "Could not read the dice: write each die as colour and face, e.g. red 3, blue 5.",
        "ja": "ダイスを読み取れません。「red 3, blue 5」のように色と目を書いてください。",
    },
    "no_seat_selected": {"en": "Choose at least one seat.", "ja": "席を1つ以上選んでください。"},
    # --- the table's life cycle, the host page and the history (pi/web/host.py, history.py)
    "stats_counted": {
        "en": "Faces per colour: every throw the games applied (a corrected throw with its corrected faces, a "
              "typed throw with its typed ones) and the camera's reads outside a game (freshly thrown dice only). "
              "The chi-square test says how likely a fair die is to scatter this much; it means something once "
              "every face is expected {n} times.",
        "ja": "色ごとの目の集計: ゲームが採用したすべての振り（修正した振りは修正後の目、入力した振りは入力した目）と、"
              "ゲーム外でカメラが読んだ振り（振ったばかりのダイスのみ）。カイ二乗検定は公平なダイスでこれだけ偏る確率を示します。"
              "各目が{n}回ずつ期待できる回数から意味を持ちます。",
    },
    "confirm_end": {"en": "End {game} now? It goes to History as ended by the host and cannot be played on.",
                    "ja": "{game}を終了しますか？ ホストが終了したゲームとして履歴に入り、続きは遊べません。"},
    "confirm_start": {"en": "Start a new game? {game}, still being played, ends here (ended by the host) and cannot "
                            "be played on.",
                      "ja": "新しいゲームを始めますか？ 進行中の{game}はここで終了し（ホストが終了）、続きは遊べません。"},
    "confirm_undo": {"en": "Undo this? {what}", "ja": "取り消しますか？ {what}"},
    "not_confirmed": {"en": "Nothing was done: this cannot be taken back, so it needs your confirmation. Tap again "
                            "and confirm.",
                      "ja": "何もしていません。元に戻せない操作なので確認が必要です。もう一度押して確認してください。"},
    "undo_changed": {"en": "Nothing was undone: the game moved on since this page said what Undo takes back. Check "
                           "it again.",
                     "ja": "何も取り消していません。このページの表示の後にゲームが進みました。取り消す内容をもう一度確認してください。"},
    "undo_what": {"en": "Undo takes back: {what}", "ja": "取り消す操作: {what}"},
    "nothing_to_undo": {"en": "Nothing to undo yet.", "ja": "取り消せる操作はまだありません。"},
    "ended_by_host": {"en": "Ended by the host", "ja": "ホストが終了"},
    "game_finished": {"en": "This game is over and already in History.", "ja": "このゲームは終わり、履歴に入っています。"},
    "in_play": {"en": "Being played", "ja": "進行中"},
    "rounds": {"en": "Round by round", "ja": "ラウンドごと"},
    "rounds_so_far": {"en": "This game's rounds so far", "ja": "このゲームのこれまでのラウンド"},
    "round_result": {"en": "Round {round} result", "ja": "ラウンド{round}の結果"},
    "bad_json": {"en": "The request's JSON could not be read: it must be valid UTF-8 JSON, nested at most "
                       "32 deep, with finite numbers and whole numbers within 64 bits.",
                 "ja": "リクエストの JSON を読めません。正しい UTF-8 の JSON で、入れ子は32段まで、"
                       "数は有限、整数は64ビットの範囲で送ってください。"},
    "bad_seed": {"en": "The seed must be a whole number from -9223372036854775807 to 9223372036854775807 "
                       "(digits 0-9 only).",
                 "ja": "シードは -9223372036854775807 から 9223372036854775807 までの整数（0〜9の数字のみ）で入力してください。"},
    "bad_face": {"en": "Type each face as a number of the die (digits 0-9), one per die.",
                 "ja": "目は数字（0〜9）で、ダイス1個につき1つ入力してください。"},
}


def t(key: str, lang: str, **fields: Any) -> str:
    """The string ``key`` in ``lang`` (English when missing), with ``fields`` filled in."""
    entry = STRINGS.get(key)
    if entry is None:
        return key
    text = entry.get(lang) or entry["en"]
    return text.format(**fields) if fields else text


def both(key: str) -> dict[str, str]:
    """The string ``key`` in every language, as an ``{"en", "ja"}`` message."""
    return {lang: t(key, lang) for lang in LANGUAGES}


def pick(text: Mapping[str, str] | str | None, lang: str) -> str:
    """One language of an ``{"en", "ja"}`` text (engine log lines, prompts)."""
    if text is None:
        return ""
    if isinstance(text, str):
        return text
    return text.get(lang) or text.get("en") or ""


def choose_language(cookie: str | None, accept: Any, default: str) -> str:
    """The page's language: the switch's cookie, else Accept-Language, else the default."""
    if cookie in LANGUAGES:
        return cookie
    if accept is not None:
        best = accept.best_match(LANGUAGES)
        if best:
            return best
    return default if default in LANGUAGES else "en"


# The Pi's own health (pi/web/health.py, the pages' banner) and the table's Wi-Fi (host page).
STRINGS.update({
    "health_disk_full": {
        "en": "The SD card is full: nothing new can be saved, so moves are refused and nothing changes. Every saved "
              "move is kept. Free some space on the Pi, then go on.",
        "ja": "SDカードがいっぱいです。新しい記録を保存できないため、操作は受け付けられず何も変わりません。保存済みの手はすべて"
              "残っています。Piの空き容量を増やしてから続けてください。"},
    "health_read_only": {
        "en": "The SD card has become read-only (a failing card or a power problem): nothing new can be saved, so "
              "moves are refused and nothing changes. Every saved move is kept. Restart the Pi; if it happens again, "
              "replace the card.",
        "ja": "SDカードが読み取り専用になりました（カードの故障か電源の問題）。新しい記録を保存できないため、操作は受け付けられず"
              "何も変わりません。保存済みの手はすべて残っています。Piを再起動し、再発するならカードを交換してください。"},
    "health_io": {
        "en": "The SD card could not write: nothing new can be saved, so moves are refused and nothing changes. Every "
              "saved move is kept. Restart the Pi; if it happens again, replace the card.",
        "ja": "SDカードに書き込めません。新しい記録を保存できないため、操作は受け付けられず何も変わりません。保存済みの手はすべて"
              "残っています。Piを再起動し、再発するならカードを交換してください。"},
    "health_disk_low": {
        "en": "The SD card is almost full ({mb} MB left): free some space before it fills up.",
        "ja": "SDカードの空きが残りわずかです（残り{mb} MB）。いっぱいになる前に空き容量を増やしてください。"},
    "health_clock_forward": {
        "en": "The clock jumped forward {amount} (the Pi has no clock battery and got the time from the network "
              "late): times shown for earlier moves may be off. No move was lost.",
        "ja": "時計が{amount}進みました（Piには時計用の電池がなく、ネットワークから遅れて時刻を得ました）。それ以前の手の時刻は"
              "ずれているかもしれません。失われた手はありません。"},
    "health_clock_back": {
        "en": "The clock jumped back {amount} (the Pi has no clock battery and corrected its time): times shown for "
              "earlier moves may be off. No move was lost.",
        "ja": "時計が{amount}戻りました（Piには時計用の電池がなく、時刻を修正しました）。それ以前の手の時刻はずれているかも"
              "しれません。失われた手はありません。"},
    "wifi_title": {"en": "The table's Wi-Fi", "ja": "テーブルのWi-Fi"},
    "wifi_hint": {"en": "Players scan this with the phone's camera to join the table's Wi-Fi, then their seat's code.",
                  "ja": "プレイヤーはスマホのカメラでこれを読み取ってテーブルのWi-Fiにつなぎ、次に自分の席のコードを読み取ります。"},
    "wifi_name": {"en": "Network", "ja": "ネットワーク名"},
    "wifi_password": {"en": "Password", "ja": "パスワード"},
})

# The teaching session (host_teach.html): the table's own dice, face by face.
STRINGS.update({
    "teach_dice": {"en": "Teach this table's dice", "ja": "このテーブルのダイスを教える"},
    "teach_dice_hint": {
        "en": "Dice the camera reads wrong (a logo, numerals, a d10 or d20 of their own): show it each face once.",
        "ja": "カメラが読み違えるダイス（ロゴ・数字の目、独特な d10・d20）に、各面を1回ずつ見せて教えます。"},
    "teach_choose": {"en": "Which die?", "ja": "どのダイス？"},
    "teach_die": {"en": "Teaching a d{sides}", "ja": "d{sides} を教えています"},
    "teach_lay": {"en": "Lay the die down showing {face}", "ja": "{face} の面を上にしてダイスを置いてください"},
    "teach_lay_hint": {"en": "Alone under the camera, nothing else on the tray. Then take the photo.",
                       "ja": "カメラの下に1個だけ置き、トレイには他に何も置かないでください。それから撮影します。"},
    "teach_photo": {"en": "Take the photo", "ja": "撮影する"},
    "teach_lay_again": {"en": "Turn the die and lay it down showing {face} again",
                        "ja": "向きを変えて、もう一度 {face} の面を上にしてダイスを置いてください"},
    "teach_again_hint": {"en": "A second photo of each face, turned and elsewhere on the tray, teaches the die surer. You can finish at any time.",
                         "ja": "面ごとに2枚目を、向きと場所を変えて撮ると、より確かに覚えます。いつでも終えられます。"},
    "teach_again_left": {"en": "second photos: {left} to go", "ja": "2枚目: あと{left}面"},
    "teach_demo": {"en": "Demo: the synthetic table lays the die down for you.",
                   "ja": "デモ: デモのテーブルがダイスを置きます。"},
    "teach_progress": {"en": "{shown} of {total} faces shown", "ja": "{total}面のうち{shown}面を見せました"},
    "teach_missing": {"en": "Still missing: {faces}", "ja": "まだの面: {faces}"},
    "teach_all_shown": {"en": "Every face is shown. Finish to keep what was taught.",
                        "ja": "すべての面を見せました。終了すると教えた内容が保存されます。"},
    "teach_any_face": {"en": "Or the face it shows now:", "ja": "または、いま上の面:"},
    "teach_shown": {"en": "shown", "ja": "済み"},
    "teach_finish": {"en": "Finish teaching", "ja": "教えるのを終える"},
    "teach_finished": {"en": "Taught the d{sides}: {shown} of {total} faces shown.",
                       "ja": "d{sides} を教えました: {total}面のうち{shown}面。"},
    "teach_finished_missing": {"en": "Taught the d{sides}: {shown} of {total} faces shown; still missing: {faces}.",
                               "ja": "d{sides} を教えました: {total}面のうち{shown}面。まだの面: {faces}。"},
    "teach_continue": {"en": "Go on teaching the d{sides} ({shown} of {total} faces)",
                       "ja": "d{sides} の続きを教える（{total}面のうち{shown}面）"},
    "teach_back": {"en": "Back to the host page", "ja": "ホスト画面に戻る"},
    "teach_start": {"en": "Start teaching", "ja": "教え始める"},
    "teach_no_camera": {"en": "Teaching needs the camera and the detector; neither is reading now.",
                        "ja": "教えるにはカメラと検出器が必要ですが、いまは読めていません。"},
    "teach_game_on": {"en": "End the game first: the camera reads every die under it as a throw.",
                      "ja": "先にゲームを終えてください。カメラの下のダイスはすべて振りとして読まれます。"},
})


# The table's voice on the host page (pi/web/voice.py, docs/voice.md).
STRINGS.update({
    "voice_title": {"en": "Voice", "ja": "音声"},
    "voice_on": {"en": "The table speaks", "ja": "読み上げ中"},
    "voice_muted": {"en": "Muted", "ja": "ミュート中"},
    "voice_silent": {"en": "The table is silent", "ja": "読み上げなし"},
    "voice_volume": {"en": "volume {volume}%", "ja": "音量 {volume}%"},
    "voice_mute": {"en": "Mute", "ja": "ミュート"},
    "voice_unmute": {"en": "Unmute", "ja": "ミュート解除"},
    "voice_quieter": {"en": "Quieter", "ja": "小さく"},
    "voice_louder": {"en": "Louder", "ja": "大きく"},
    "voice_not_started": {"en": "the voice is not running at this table",
                          "ja": "このテーブルでは読み上げが動いていません"},
    "voice_bad_request": {"en": "Send muted (1 or 0) or volume (0 to 100).",
                          "ja": "muted（1 か 0）か volume（0〜100）を送ってください。"},
    "voice_bad_muted": {"en": "muted is 1 (mute) or 0 (speak).", "ja": "muted は 1（ミュート）か 0（読み上げ）です。"},
    "voice_bad_volume": {"en": "The volume is a whole number from 0 to 100.", "ja": "音量は 0〜100 の整数です。"},
})
