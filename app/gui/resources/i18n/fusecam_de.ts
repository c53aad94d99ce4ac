<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
<context>
    <name></name>
    <message>
        <source>The face-swap stages could not start ({error}); the preview shows the camera image, the outputs show a placeholder card.</source>
        <translation>Die Gesichtstausch-Stufen konnten nicht starten ({error}); die Vorschau zeigt das Kamerabild, die Ausgänge zeigen eine Platzhalterkarte.</translation>
    </message>
    <message>
        <source>{reason} — showing the demo instead. Pick a camera in Input when one is connected.</source>
        <translation>{reason} – stattdessen wird die Demo gezeigt. Wähle unter Eingang eine Kamera, sobald eine angeschlossen ist.</translation>
    </message>
    <message>
        <source>No camera could be opened; showing the demo source. Pick a camera in Input when one is connected.</source>
        <translation>Keine Kamera ließ sich öffnen; die Demo-Quelle wird gezeigt. Wähle unter Eingang eine Kamera, sobald eine angeschlossen ist.</translation>
    </message>
    <message>
        <source>Could not list cameras: {error}</source>
        <translation>Kameras konnten nicht aufgelistet werden: {error}</translation>
    </message>
    <message>
        <source>Could not load</source>
        <translation>Konnte nicht geladen werden</translation>
    </message>
    <message>
        <source>No images found to add (use JPEG or PNG photos).</source>
        <translation>Keine Bilder zum Hinzufügen gefunden (JPEG- oder PNG-Fotos verwenden).</translation>
    </message>
    <message>
        <source>{name} is already in the gallery.</source>
        <translation>{name} ist schon in der Galerie.</translation>
    </message>
    <message>
        <source>still loading</source>
        <translation>wird noch geladen</translation>
    </message>
    <message>
        <source>{name} cannot be used: {reason}</source>
        <translation>{name} kann nicht verwendet werden: {reason}</translation>
    </message>
    <message>
        <source>New token: switch the stream off and on to use it.</source>
        <translation>Neuer Token: Stream aus- und wieder einschalten, um ihn zu verwenden.</translation>
    </message>
    <message>
        <source>starting…</source>
        <translation>startet…</translation>
    </message>
    <message>
        <source>finishing…</source>
        <translation>wird abgeschlossen…</translation>
    </message>
    <message>
        <source>stopping…</source>
        <translation>wird beendet…</translation>
    </message>
    <message>
        <source>Recorded {frames} frames to {path} ({codec})</source>
        <translation>{frames} Bilder nach {path} aufgenommen ({codec})</translation>
    </message>
    <message>
        <source>on · {what}</source>
        <translation>an · {what}</translation>
    </message>
    <message>
        <source>on · {url} · {n} watching</source>
        <translation>an · {url} · {n} sehen zu</translation>
    </message>
    <message>
        <source>{clock} · {frames} frames · {path}</source>
        <translation>{clock} · {frames} Bilder · {path}</translation>
    </message>
    <message>
        <source>off</source>
        <translation>aus</translation>
    </message>
    <message>
        <source>stopped: {error}</source>
        <translation>gestoppt: {error}</translation>
    </message>
    <message>
        <source>starting</source>
        <translation>startet</translation>
    </message>
    <message>
        <source>a processing step failed</source>
        <translation>ein Verarbeitungsschritt ist fehlgeschlagen</translation>
    </message>
    <message>
        <source>no face found</source>
        <translation>kein Gesicht gefunden</translation>
    </message>
    <message>
        <source>face swap is off</source>
        <translation>Gesichtstausch ist aus</translation>
    </message>
    <message>
        <source>no source face chosen</source>
        <translation>kein Quellgesicht gewählt</translation>
    </message>
    <message>
        <source>a face was not swapped</source>
        <translation>ein Gesicht wurde nicht getauscht</translation>
    </message>
    <message>
        <source>blurred</source>
        <translation>unscharf</translation>
    </message>
    <message>
        <source>pixelated</source>
        <translation>verpixelt</translation>
    </message>
    <message>
        <source>faces blurred</source>
        <translation>Gesichter unscharf</translation>
    </message>
    <message>
        <source>faces pixelated</source>
        <translation>Gesichter verpixelt</translation>
    </message>
    <message>
        <source>a card</source>
        <translation>eine Karte</translation>
    </message>
    <message>
        <source>RAW ({why}) — SENT TO THE OUTPUTS: protection is off</source>
        <translation>ROH ({why}) – GEHT AN DIE AUSGÄNGE: Schutz ist aus</translation>
    </message>
    <message>
        <source>RAW ({why}) — the outputs show {cover}</source>
        <translation>ROH ({why}) – die Ausgänge zeigen: {cover}</translation>
    </message>
    <message>
        <source>Outputs: waiting</source>
        <translation>Ausgänge: warten</translation>
    </message>
    <message>
        <source>Outputs: swapped ✓</source>
        <translation>Ausgänge: getauscht ✓</translation>
    </message>
    <message>
        <source>Outputs: holding ({why})</source>
        <translation>Ausgänge: halten ({why})</translation>
    </message>
    <message>
        <source>Outputs: covered ({why})</source>
        <translation>Ausgänge: verdeckt ({why})</translation>
    </message>
    <message>
        <source>Outputs: card ({why})</source>
        <translation>Ausgänge: Karte ({why})</translation>
    </message>
    <message>
        <source>Outputs: UNPROTECTED</source>
        <translation>Ausgänge: UNGESCHÜTZT</translation>
    </message>
    <message>
        <source>Protection: waiting for the first frame</source>
        <translation>Schutz: wartet auf das erste Bild</translation>
    </message>
    <message>
        <source>Protection: the outputs show the swapped picture</source>
        <translation>Schutz: die Ausgänge zeigen das getauschte Bild</translation>
    </message>
    <message>
        <source>Protection: holding the last swapped frame ({why})</source>
        <translation>Schutz: das letzte getauschte Bild wird gehalten ({why})</translation>
    </message>
    <message>
        <source>Protection: the outputs are covered ({why})</source>
        <translation>Schutz: die Ausgänge sind verdeckt ({why})</translation>
    </message>
    <message>
        <source>Protection: the outputs show a card ({why})</source>
        <translation>Schutz: die Ausgänge zeigen eine Karte ({why})</translation>
    </message>
    <message>
        <source>Protection OFF: the outputs show your camera image</source>
        <translation>Schutz AUS: die Ausgänge zeigen dein Kamerabild</translation>
    </message>
    <message>
        <source>cost: measuring…</source>
        <translation>Kosten: wird gemessen…</translation>
    </message>
    <message>
        <source>Settings could not be saved: {error}</source>
        <translation>Einstellungen konnten nicht gespeichert werden: {error}</translation>
    </message>
    <message>
        <source>opening {input}…</source>
        <translation>{input} wird geöffnet…</translation>
    </message>
    <message>
        <source>System language</source>
        <translation>Systemsprache</translation>
    </message>
    <message>
        <source>Automatic (compact on a small picture)</source>
        <translation>Automatisch (kompakt bei kleinem Bild)</translation>
    </message>
    <message>
        <source>Compact</source>
        <translation>Kompakt</translation>
    </message>
    <message>
        <source>Full</source>
        <translation>Vollständig</translation>
    </message>
    <message>
        <source>real-time face swap for streamers.</source>
        <translation>Gesichtstausch in Echtzeit für Streamer.</translation>
    </message>
    <message>
        <source>Bundled sample faces are public-domain photographs.</source>
        <translation>Die mitgelieferten Beispielgesichter sind gemeinfreie Fotos.</translation>
    </message>
    <message>
        <source>Use only faces you have consent for.</source>
        <translation>Verwende nur Gesichter, für die du eine Einwilligung hast.</translation>
    </message>
    <message>
        <source>More menus</source>
        <translation>Weitere Menüs</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>&amp;Datei</translation>
    </message>
    <message>
        <source>Add face photos…</source>
        <translation>Gesichtsfotos hinzufügen…</translation>
    </message>
    <message>
        <source>Add one person from several photos…</source>
        <translation>Eine Person aus mehreren Fotos hinzufügen…</translation>
    </message>
    <message>
        <source>Restore the sample faces</source>
        <translation>Beispielgesichter wiederherstellen</translation>
    </message>
    <message>
        <source>Open video or image as input…</source>
        <translation>Video oder Bild als Eingang öffnen…</translation>
    </message>
    <message>
        <source>Folder for recordings…</source>
        <translation>Ordner für Aufnahmen…</translation>
    </message>
    <message>
        <source>Quit</source>
        <translation>Beenden</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>&amp;Ansicht</translation>
    </message>
    <message>
        <source>Show original</source>
        <translation>Original zeigen</translation>
    </message>
    <message>
        <source>Heads-up display</source>
        <translation>Leistungsanzeige</translation>
    </message>
    <message>
        <source>Heads-up display size</source>
        <translation>Größe der Leistungsanzeige</translation>
    </message>
    <message>
        <source>Control panel</source>
        <translation>Bedienfeld</translation>
    </message>
    <message>
        <source>Full screen</source>
        <translation>Vollbild</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>Sprache</translation>
    </message>
    <message>
        <source>&amp;Outputs</source>
        <translation>A&amp;usgänge</translation>
    </message>
    <message>
        <source>Virtual camera on/off</source>
        <translation>Virtuelle Kamera ein/aus</translation>
    </message>
    <message>
        <source>Local stream on/off</source>
        <translation>Lokaler Stream ein/aus</translation>
    </message>
    <message>
        <source>Start/stop recording</source>
        <translation>Aufnahme starten/stoppen</translation>
    </message>
    <message>
        <source>&amp;Models</source>
        <translation>&amp;Modelle</translation>
    </message>
    <message>
        <source>Manage models…</source>
        <translation>Modelle verwalten…</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>&amp;Hilfe</translation>
    </message>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>Tastenkürzel</translation>
    </message>
    <message>
        <source>Responsible use</source>
        <translation>Verantwortungsvolle Nutzung</translation>
    </message>
    <message>
        <source>System check (GPU, virtual camera, logs)…</source>
        <translation>Systemprüfung (GPU, virtuelle Kamera, Protokolle)…</translation>
    </message>
    <message>
        <source>Check a file for the watermark…</source>
        <translation>Datei auf das Wasserzeichen prüfen…</translation>
    </message>
    <message>
        <source>Activity log…</source>
        <translation>Aktivitätsprotokoll…</translation>
    </message>
    <message>
        <source>About Fusecam</source>
        <translation>Über Fusecam</translation>
    </message>
    <message>
        <source>Fusecam preview</source>
        <translation>Fusecam-Vorschau</translation>
    </message>
    <message>
        <source>DirectML (Windows GPU)</source>
        <translation>DirectML (Windows-GPU)</translation>
    </message>
    <message>
        <source>Blur the picture</source>
        <translation>Bild unscharf machen</translation>
    </message>
    <message>
        <source>Pixelate the picture</source>
        <translation>Bild verpixeln</translation>
    </message>
    <message>
        <source>Blur the faces</source>
        <translation>Gesichter unscharf machen</translation>
    </message>
    <message>
        <source>Pixelate the faces</source>
        <translation>Gesichter verpixeln</translation>
    </message>
    <message>
        <source>Show a “Be right back” card</source>
        <translation>Karte „Gleich zurück“ zeigen</translation>
    </message>
    <message>
        <source>Send the camera image (unsafe)</source>
        <translation>Kamerabild senden (unsicher)</translation>
    </message>
    <message>
        <source>Keep hands over the face visible</source>
        <translation>Hände vor dem Gesicht sichtbar lassen</translation>
    </message>
    <message>
        <source>Swap</source>
        <translation>Tausch</translation>
    </message>
    <message>
        <source>Outputs</source>
        <translation>Ausgänge</translation>
    </message>
    <message>
        <source>Input</source>
        <translation>Eingang</translation>
    </message>
    <message>
        <source>Models</source>
        <translation>Modelle</translation>
    </message>
    <message>
        <source>Face swap</source>
        <translation>Gesichtstausch</translation>
    </message>
    <message>
        <source>Swap faces (S)</source>
        <translation>Gesichter tauschen (S)</translation>
    </message>
    <message>
        <source>Strength</source>
        <translation>Stärke</translation>
    </message>
    <message>
        <source>Face shape</source>
        <translation>Gesichtsform</translation>
    </message>
    <message>
        <source>Blend</source>
        <translation>Überblendung</translation>
    </message>
    <message>
        <source>Built-in swapper: how much of the new face replaces yours, and how far the face shape moves. 100 %: all of it.</source>
        <translation>Eingebauter Tauscher: wie viel des neuen Gesichts deines ersetzt und wie weit sich die Gesichtsform verändert. 100 %: ganz.</translation>
    </message>
    <message>
        <source>Identity mix</source>
        <translation>Identitätsmischung</translation>
    </message>
    <message>
        <source>Neural swapper: how much of the source&apos;s identity the model is given, mixed with yours. 100 %: the source&apos;s alone.</source>
        <translation>Neuronaler Tauscher: wie viel von der Identität der Quelle das Modell bekommt, gemischt mit deiner. 100 %: nur die der Quelle.</translation>
    </message>
    <message>
        <source>Likeness</source>
        <translation>Ähnlichkeit</translation>
    </message>
    <message>
        <source>How much of the source photo&apos;s own skin shading the built-in swap keeps. Higher looks more like the photo, lower sits more naturally in your light.</source>
        <translation>Wie viel der eigenen Hautschattierung des Quellfotos der eingebaute Tausch behält. Höher sieht dem Foto ähnlicher, niedriger fügt sich natürlicher in dein Licht ein.</translation>
    </message>
    <message>
        <source>Yours</source>
        <translation>Deine</translation>
    </message>
    <message>
        <source>The photo&apos;s</source>
        <translation>Die des Fotos</translation>
    </message>
    <message>
        <source>The photo&apos;s, following you</source>
        <translation>Die des Fotos, dir folgend</translation>
    </message>
    <message>
        <source>What shows between the lids. Yours: your own eyes in the source&apos;s iris colour; they blink and look where you look. The photo&apos;s: as the source was photographed (looks more like the photo, never blinks or looks around). Following you (experimental): the photo&apos;s eyes turned to look where you look; their whites look flat.</source>
        <translation>Was zwischen den Lidern zu sehen ist. Deine: deine eigenen Augen in der Irisfarbe der Quelle; sie blinzeln und schauen, wohin du schaust. Die des Fotos: so, wie die Quelle fotografiert wurde (dem Foto ähnlicher, blinzelt nie und schaut nicht umher). Dir folgend (experimentell): die Augen des Fotos, dorthin gedreht, wohin du schaust; ihr Weiß wirkt flach.</translation>
    </message>
    <message>
        <source>Eyes</source>
        <translation>Augen</translation>
    </message>
    <message>
        <source>Main face</source>
        <translation>Hauptgesicht</translation>
    </message>
    <message>
        <source>All faces</source>
        <translation>Alle Gesichter</translation>
    </message>
    <message>
        <source>Map left → right</source>
        <translation>Links → rechts zuordnen</translation>
    </message>
    <message>
        <source>Faces</source>
        <translation>Gesichter</translation>
    </message>
    <message>
        <source>Keep my mouth interior</source>
        <translation>Mein Mundinneres behalten</translation>
    </message>
    <message>
        <source>Draw the source&apos;s beard</source>
        <translation>Bart der Vorlage zeichnen</translation>
    </message>
    <message>
        <source>Off: where the source photo has a beard, moustache or stubble, your own chin shows (drawn in your light it looks like a grey smear). On: the source&apos;s beard is drawn; it looks more like the photo.</source>
        <translation>Aus: Wo das Foto der Vorlage Bart, Schnurrbart oder Stoppeln hat, ist Ihr eigenes Kinn zu sehen (in Ihrem Licht gezeichnet wirkt er wie ein grauer Schleier). An: Der Bart der Vorlage wird gezeichnet; das Gesicht sieht dem Foto ähnlicher.</translation>
    </message>
    <message>
        <source>Match skin colour</source>
        <translation>Hautfarbe angleichen</translation>
    </message>
    <message>
        <source>Built-in swapper only: the neural swapper&apos;s model draws the skin and its shading.</source>
        <translation>Nur beim eingebauten Tauscher: beim neuronalen Tauscher zeichnet das Modell die Haut und ihre Schattierung.</translation>
    </message>
    <message>
        <source>Built-in swapper only: the neural swapper&apos;s model draws the eyes looking where yours look.</source>
        <translation>Nur beim eingebauten Tauscher: beim neuronalen Tauscher zeichnet das Modell die Augen so, dass sie dorthin schauen, wohin Sie schauen.</translation>
    </message>
    <message>
        <source>Built-in swapper only: the neural swapper&apos;s model sets the skin colour.</source>
        <translation>Nur beim eingebauten Tauscher: beim neuronalen Tauscher bestimmt das Modell die Hautfarbe.</translation>
    </message>
    <message>
        <source>Built-in swapper only: the neural swapper&apos;s model draws the whole face.</source>
        <translation>Nur beim eingebauten Tauscher: beim neuronalen Tauscher zeichnet das Modell das ganze Gesicht.</translation>
    </message>
    <message>
        <source>Edge softness</source>
        <translation>Kantenweichheit</translation>
    </message>
    <message>
        <source>Enhancer</source>
        <translation>Verbesserer</translation>
    </message>
    <message>
        <source>Off</source>
        <translation>Aus</translation>
    </message>
    <message>
        <source>Built-in</source>
        <translation>Eingebaut</translation>
    </message>
    <message>
        <source>Neural (ONNX)</source>
        <translation>Neuronal (ONNX)</translation>
    </message>
    <message>
        <source>Mode (E)</source>
        <translation>Modus (E)</translation>
    </message>
    <message>
        <source>Enhancer mode</source>
        <translation>Modus des Verbesserers</translation>
    </message>
    <message>
        <source>Neural enhancer model</source>
        <translation>Modell des neuronalen Verbesserers</translation>
    </message>
    <message>
        <source>Add GFPGAN-style models in Models → Manage models</source>
        <translation>GFPGAN-artige Modelle unter Modelle → Modelle verwalten hinzufügen</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>Modell</translation>
    </message>
    <message>
        <source>Enhancer strength</source>
        <translation>Stärke des Verbesserers</translation>
    </message>
    <message>
        <source>cost: toggle to measure</source>
        <translation>Kosten: zum Messen umschalten</translation>
    </message>
    <message>
        <source>When processing cannot keep this frame rate, quality steps down by itself (the enhancer first, then face search and render scale) and back up when it can. Off: always full quality, whatever the frame rate.</source>
        <translation>Schafft die Verarbeitung diese Bildrate nicht, senkt Fusecam die Qualität selbst (zuerst den Verbesserer, dann Gesichtssuche und Renderauflösung) und hebt sie wieder, sobald es geht. Aus: immer volle Qualität, gleich bei welcher Bildrate.</translation>
    </message>
    <message>
        <source>Hold</source>
        <translation>Halten</translation>
    </message>
    <message>
        <source>When the swap misses</source>
        <translation>Wenn der Tausch ausfällt</translation>
    </message>
    <message>
        <source>Minimum frame rate</source>
        <translation>Mindest-Bildrate</translation>
    </message>
    <message>
        <source>Min. fps</source>
        <translation>Min. fps</translation>
    </message>
    <message>
        <source>Face lost, no face, or still loading: the outputs show the last swapped frame for a moment, then this — never your camera image.</source>
        <translation>Gesicht verloren, kein Gesicht oder noch am Laden: die Ausgänge zeigen kurz das letzte getauschte Bild, dann dies – nie dein Kamerabild.</translation>
    </message>
    <message>
        <source>Hold the last swapped frame</source>
        <translation>Das letzte getauschte Bild halten</translation>
    </message>
    <message>
        <source>Then</source>
        <translation>Dann</translation>
    </message>
    <message>
        <source>Then show</source>
        <translation>Danach zeigen</translation>
    </message>
    <message>
        <source>Label and overlay</source>
        <translation>Kennzeichnung und Einblendung</translation>
    </message>
    <message>
        <source>Show a “SYNTHETIC” label</source>
        <translation>Kennzeichnung „SYNTHETIC“ zeigen</translation>
    </message>
    <message>
        <source>On every output: virtual camera, stream and recording</source>
        <translation>Auf jedem Ausgang: virtuelle Kamera, Stream und Aufnahme</translation>
    </message>
    <message>
        <source>Debug overlay</source>
        <translation>Debug-Einblendung</translation>
    </message>
    <message>
        <source>Mirror (M)</source>
        <translation>Spiegeln (M)</translation>
    </message>
    <message>
        <source>Built-in (no download)</source>
        <translation>Eingebaut (ohne Download)</translation>
    </message>
    <message>
        <source>Neural (inswapper)</source>
        <translation>Neuronal (inswapper)</translation>
    </message>
    <message>
        <source>Swapper</source>
        <translation>Tauscher</translation>
    </message>
    <message>
        <source>Run on</source>
        <translation>Ausführen auf</translation>
    </message>
    <message>
        <source>Automatic: the best available (an NVIDIA GPU with CUDA when there is one, else the CPU)</source>
        <translation>Automatisch: das Beste, was verfügbar ist (eine NVIDIA-GPU mit CUDA, falls vorhanden, sonst die CPU)</translation>
    </message>
    <message>
        <source>Changing these reloads the models in the background.</source>
        <translation>Eine Änderung lädt die Modelle im Hintergrund neu.</translation>
    </message>
    <message>
        <source>Manage models</source>
        <translation>Modelle verwalten</translation>
    </message>
    <message>
        <source>List, download, verify, add, remove and choose neural models</source>
        <translation>Neuronale Modelle auflisten, herunterladen, prüfen, hinzufügen, entfernen und wählen</translation>
    </message>
    <message>
        <source>Built-in swapper only: the neural swapper&apos;s model shapes the face.</source>
        <translation>Nur beim eingebauten Tauscher: beim neuronalen Tauscher formt das Modell das Gesicht.</translation>
    </message>
    <message>
        <source>None chosen</source>
        <translation>Keins gewählt</translation>
    </message>
    <message>
        <source>Left → right: {names}</source>
        <translation>Links → rechts: {names}</translation>
    </message>
    <message>
        <source>Nothing mapped: no face is swapped. Ctrl+click faces in the gallery to map them left → right.</source>
        <translation>Nichts zugeordnet: kein Gesicht wird getauscht. Strg+Klick auf Gesichter in der Galerie ordnet sie links → rechts zu.</translation>
    </message>
    <message>
        <source>System check</source>
        <translation>Systemprüfung</translation>
    </message>
    <message>
        <source>What this computer can run on and what is missing, each with its fix (the same as &lt;code&gt;fusecam doctor&lt;/code&gt;).</source>
        <translation>Worauf dieser Computer rechnen kann und was fehlt, jeweils mit Abhilfe (wie &lt;code&gt;fusecam doctor&lt;/code&gt;).</translation>
    </message>
    <message>
        <source>Checking…</source>
        <translation>Wird geprüft…</translation>
    </message>
    <message>
        <source>System check report</source>
        <translation>Bericht der Systemprüfung</translation>
    </message>
    <message>
        <source>Check again</source>
        <translation>Erneut prüfen</translation>
    </message>
    <message>
        <source>Copy report</source>
        <translation>Bericht kopieren</translation>
    </message>
    <message>
        <source>loading…</source>
        <translation>wird geladen…</translation>
    </message>
    <message>
        <source>Live preview: your camera with this face</source>
        <translation>Live-Vorschau: deine Kamera mit diesem Gesicht</translation>
    </message>
    <message>
        <source>Remove this face from the gallery</source>
        <translation>Dieses Gesicht aus der Galerie entfernen</translation>
    </message>
    <message>
        <source>Remove this face</source>
        <translation>Dieses Gesicht entfernen</translation>
    </message>
    <message>
        <source>Face: {name}</source>
        <translation>Gesicht: {name}</translation>
    </message>
    <message>
        <source>loading</source>
        <translation>wird geladen</translation>
    </message>
    <message>
        <source>could not be loaded</source>
        <translation>konnte nicht geladen werden</translation>
    </message>
    <message>
        <source>in use</source>
        <translation>in Verwendung</translation>
    </message>
    <message>
        <source>press Enter to use</source>
        <translation>Eingabetaste zum Verwenden</translation>
    </message>
    <message>
        <source>not loaded</source>
        <translation>nicht geladen</translation>
    </message>
    <message>
        <source>Use this face</source>
        <translation>Dieses Gesicht verwenden</translation>
    </message>
    <message>
        <source>Add to left → right mapping</source>
        <translation>Zur Zuordnung links → rechts hinzufügen</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>Entfernen</translation>
    </message>
    <message>
        <source>click or press 1–9 to use · drop photos or folders here</source>
        <translation>zum Verwenden klicken oder 1–9 drücken · Fotos oder Ordner hier ablegen</translation>
    </message>
    <message>
        <source>+ Add faces…</source>
        <translation>+ Gesichter hinzufügen…</translation>
    </message>
    <message>
        <source>Add face photos (Ctrl+O)</source>
        <translation>Gesichtsfotos hinzufügen (Strg+O)</translation>
    </message>
    <message>
        <source>Add faces</source>
        <translation>Gesichter hinzufügen</translation>
    </message>
    <message>
        <source>Performance</source>
        <translation>Leistung</translation>
    </message>
    <message>
        <source>Skipped camera frames: frames a newer one replaced before the engine was free. Normal when a frame takes longer than the camera&apos;s interval; the newest frame is always the one processed, so nothing lags.</source>
        <translation>Übersprungene Kamerabilder: Bilder, die ein neueres ersetzte, bevor die Verarbeitung frei war. Normal, wenn ein Bild länger dauert als der Takt der Kamera; verarbeitet wird immer das neueste Bild, daher hinkt nichts hinterher.</translation>
    </message>
    <message>
        <source>Camera, demo or a video/image file</source>
        <translation>Kamera, Demo oder eine Video-/Bilddatei</translation>
    </message>
    <message>
        <source>Source</source>
        <translation>Quelle</translation>
    </message>
    <message>
        <source>Look for cameras again</source>
        <translation>Erneut nach Kameras suchen</translation>
    </message>
    <message>
        <source>Resolution</source>
        <translation>Auflösung</translation>
    </message>
    <message>
        <source>Frame rate</source>
        <translation>Bildrate</translation>
    </message>
    <message>
        <source>Demo portrait</source>
        <translation>Demo-Porträt</translation>
    </message>
    <message>
        <source>File: {name}</source>
        <translation>Datei: {name}</translation>
    </message>
    <message>
        <source>Open video or image…</source>
        <translation>Video oder Bild öffnen…</translation>
    </message>
    <message>
        <source>A file plays at its own size and frame rate.</source>
        <translation>Eine Datei läuft in ihrer eigenen Größe und Bildrate.</translation>
    </message>
    <message>
        <source>The camera delivers {w}×{h} at {fps:g} fps.</source>
        <translation>Die Kamera liefert {w}×{h} bei {fps:g} fps.</translation>
    </message>
    <message>
        <source>Close other apps that use the camera (Zoom, OBS, a browser tab) or pick another camera.</source>
        <translation>Schließe andere Programme, die die Kamera nutzen (Zoom, OBS, ein Browser-Tab), oder wähle eine andere Kamera.</translation>
    </message>
    <message>
        <source>Check the cable; Fusecam reconnects on its own when the camera returns.</source>
        <translation>Prüfe das Kabel; Fusecam verbindet sich von selbst neu, sobald die Kamera wieder da ist.</translation>
    </message>
    <message>
        <source>Pick another camera in Input, or use the demo source.</source>
        <translation>Wähle unter Eingang eine andere Kamera oder verwende die Demo-Quelle.</translation>
    </message>
    <message>
        <source>Try another resolution or frame rate, or another camera.</source>
        <translation>Versuche eine andere Auflösung oder Bildrate oder eine andere Kamera.</translation>
    </message>
    <message>
        <source>Get the model in Models → Manage models, or pick the built-in mode.</source>
        <translation>Hol das Modell unter Modelle → Modelle verwalten oder wähle den eingebauten Modus.</translation>
    </message>
    <message>
        <source>Install the virtual camera driver (OBS Virtual Camera on Windows/macOS, v4l2loopback on Linux), then switch it on again.</source>
        <translation>Installiere den Treiber für die virtuelle Kamera (OBS Virtual Camera unter Windows/macOS, v4l2loopback unter Linux) und schalte sie dann wieder ein.</translation>
    </message>
    <message>
        <source>Another program uses that port: pick another port under Outputs (0 = any free port).</source>
        <translation>Ein anderes Programm nutzt diesen Port: wähle unter Ausgänge einen anderen (0 = irgendein freier Port).</translation>
    </message>
    <message>
        <source>Choose another folder for recordings (File → Folder for recordings).</source>
        <translation>Wähle einen anderen Ordner für Aufnahmen (Datei → Ordner für Aufnahmen).</translation>
    </message>
    <message>
        <source>Use a sharp, frontal photo where the face is clearly visible.</source>
        <translation>Verwende ein scharfes Foto von vorn, auf dem das Gesicht gut zu sehen ist.</translation>
    </message>
    <message>
        <source>Use a JPEG or PNG photo.</source>
        <translation>Verwende ein JPEG- oder PNG-Foto.</translation>
    </message>
    <message>
        <source>swapper</source>
        <translation>Tauscher</translation>
    </message>
    <message>
        <source>enhancer</source>
        <translation>Verbesserer</translation>
    </message>
    <message>
        <source>How to fix ▸</source>
        <translation>Abhilfe ▸</translation>
    </message>
    <message>
        <source>How to fix</source>
        <translation>Abhilfe</translation>
    </message>
    <message>
        <source>Dismiss</source>
        <translation>Schließen</translation>
    </message>
    <message>
        <source>Dismiss this message</source>
        <translation>Diese Meldung schließen</translation>
    </message>
    <message>
        <source>Hide ▾</source>
        <translation>Ausblenden ▾</translation>
    </message>
    <message>
        <source>The neural {stage} is in use.</source>
        <translation>Der neuronale {stage} ist in Verwendung.</translation>
    </message>
    <message>
        <source>Loading the neural {stage}…</source>
        <translation>Der neuronale {stage} wird geladen…</translation>
    </message>
    <message>
        <source>Neural {stage} unavailable ({reason}); using the built-in one.</source>
        <translation>Neuronaler {stage} nicht verfügbar ({reason}); der eingebaute wird verwendet.</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>Name</translation>
    </message>
    <message>
        <source>Family</source>
        <translation>Familie</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>Größe</translation>
    </message>
    <message>
        <source>State</source>
        <translation>Zustand</translation>
    </message>
    <message>
        <source>Licence</source>
        <translation>Lizenz</translation>
    </message>
    <message>
        <source>face swapper</source>
        <translation>Gesichtstauscher</translation>
    </message>
    <message>
        <source>identity (for the swapper)</source>
        <translation>Identität (für den Tauscher)</translation>
    </message>
    <message>
        <source>face enhancer</source>
        <translation>Gesichtsverbesserer</translation>
    </message>
    <message>
        <source>ready</source>
        <translation>bereit</translation>
    </message>
    <message>
        <source>present (not verified yet)</source>
        <translation>vorhanden (noch nicht geprüft)</translation>
    </message>
    <message>
        <source>not downloaded</source>
        <translation>nicht heruntergeladen</translation>
    </message>
    <message>
        <source>partly downloaded ({mb})</source>
        <translation>teilweise heruntergeladen ({mb})</translation>
    </message>
    <message>
        <source>hash mismatch</source>
        <translation>Prüfsumme stimmt nicht</translation>
    </message>
    <message>
        <source> — user supplied, unverified</source>
        <translation> – vom Benutzer, ungeprüft</translation>
    </message>
    <message>
        <source>Neural models are optional: the built-in swapper and enhancer need none. Nothing downloads unless you ask; every download is checked against the SHA-256 pinned in Fusecam.</source>
        <translation>Neuronale Modelle sind optional: der eingebaute Tauscher und Verbesserer brauchen keine. Nichts wird ungefragt heruntergeladen; jeder Download wird gegen die in Fusecam festgelegte SHA-256 geprüft.</translation>
    </message>
    <message>
        <source>No face enhancer can be downloaded here: GFPGAN&apos;s authors publish only PyTorch weights. If you have a GFPGAN-style ONNX file (for example converted from GFPGANv1.4.pth, or GPEN-BFR-512), pick “face enhancer” below and click Add…; it is then offered under Swap → Enhancer → Model. It must take and give 1×3×512×512 RGB in [-1, 1] (docs/models.md).</source>
        <translation>Ein Gesichtsverbesserer lässt sich hier nicht herunterladen: Die Autoren von GFPGAN veröffentlichen nur PyTorch-Gewichte. Haben Sie eine ONNX-Datei im Stil von GFPGAN (etwa aus GFPGANv1.4.pth umgewandelt, oder GPEN-BFR-512), wählen Sie unten „Gesichtsverbesserer“ und klicken Sie auf Hinzufügen…; sie steht dann unter Tausch → Verbesserer → Modell zur Wahl. Sie muss 1×3×512×512 RGB in [-1, 1] annehmen und ausgeben (docs/models.md).</translation>
    </message>
    <message>
        <source>Download progress</source>
        <translation>Download-Fortschritt</translation>
    </message>
    <message>
        <source>Download</source>
        <translation>Herunterladen</translation>
    </message>
    <message>
        <source>Download the selected model (and what it needs)</source>
        <translation>Das gewählte Modell herunterladen (und was es braucht)</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <source>Stop the download</source>
        <translation>Den Download anhalten</translation>
    </message>
    <message>
        <source>Verify</source>
        <translation>Prüfen</translation>
    </message>
    <message>
        <source>Hash the selected model&apos;s file against its SHA-256</source>
        <translation>Die Datei des gewählten Modells gegen ihre SHA-256 prüfen</translation>
    </message>
    <message>
        <source>Use</source>
        <translation>Verwenden</translation>
    </message>
    <message>
        <source>Make the app use the selected model</source>
        <translation>Das gewählte Modell in der App verwenden</translation>
    </message>
    <message>
        <source>Forget a model you added, or delete a downloaded model&apos;s file</source>
        <translation>Ein hinzugefügtes Modell vergessen oder die Datei eines heruntergeladenen löschen</translation>
    </message>
    <message>
        <source>Kind of model to add</source>
        <translation>Art des hinzuzufügenden Modells</translation>
    </message>
    <message>
        <source>Add…</source>
        <translation>Hinzufügen…</translation>
    </message>
    <message>
        <source>Register an ONNX model file you have (checked before use)</source>
        <translation>Eine vorhandene ONNX-Modelldatei eintragen (wird vor der Verwendung geprüft)</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>Schließen</translation>
    </message>
    <message>
        <source>Close this dialog</source>
        <translation>Diesen Dialog schließen</translation>
    </message>
    <message>
        <source> — in use</source>
        <translation> – in Verwendung</translation>
    </message>
    <message>
        <source>Added by you from {path}; Fusecam cannot know where it came from.</source>
        <translation>Von dir hinzugefügt aus {path}; Fusecam kann nicht wissen, woher es stammt.</translation>
    </message>
    <message>
        <source>Downloading {name}…</source>
        <translation>{name} wird heruntergeladen…</translation>
    </message>
    <message>
        <source>Download failed: {error}</source>
        <translation>Download fehlgeschlagen: {error}</translation>
    </message>
    <message>
        <source>Downloaded and verified: {name}</source>
        <translation>Heruntergeladen und geprüft: {name}</translation>
    </message>
    <message>
        <source>Checking {name}…</source>
        <translation>{name} wird geprüft…</translation>
    </message>
    <message>
        <source>Not added: {error}</source>
        <translation>Nicht hinzugefügt: {error}</translation>
    </message>
    <message>
        <source>Not removed: {error}</source>
        <translation>Nicht entfernt: {error}</translation>
    </message>
    <message>
        <source>{name}: the file matches its SHA-256.</source>
        <translation>{name}: die Datei stimmt mit ihrer SHA-256 überein.</translation>
    </message>
    <message>
        <source>Added {name} (user supplied, unverified).</source>
        <translation>{name} hinzugefügt (vom Benutzer, ungeprüft).</translation>
    </message>
    <message>
        <source>Forgot {name} (its file was left where it is).</source>
        <translation>{name} vergessen (die Datei bleibt, wo sie ist).</translation>
    </message>
    <message>
        <source>Deleted the downloaded file of {name}.</source>
        <translation>Die heruntergeladene Datei von {name} wurde gelöscht.</translation>
    </message>
    <message>
        <source>The app now uses {name}.</source>
        <translation>Die App verwendet jetzt {name}.</translation>
    </message>
    <message>
        <source>Accept licence and download</source>
        <translation>Lizenz annehmen und herunterladen</translation>
    </message>
    <message>
        <source>Download cancelled; what arrived is kept to resume later.</source>
        <translation>Download abgebrochen; das Empfangene bleibt zum späteren Fortsetzen erhalten.</translation>
    </message>
    <message>
        <source>Check failed: {error}</source>
        <translation>Prüfung fehlgeschlagen: {error}</translation>
    </message>
    <message>
        <source>Add an ONNX model</source>
        <translation>Ein ONNX-Modell hinzufügen</translation>
    </message>
    <message>
        <source>ONNX models (*.onnx)</source>
        <translation>ONNX-Modelle (*.onnx)</translation>
    </message>
    <message>
        <source>
&lt;h3&gt;Use Fusecam responsibly&lt;/h3&gt;
&lt;p&gt;Fusecam replaces your face with another person&apos;s face, live.&lt;/p&gt;
&lt;ul&gt;
&lt;li&gt;Use only faces of people who have &lt;b&gt;agreed&lt;/b&gt; to it — yourself, or someone who
gave you their consent.&lt;/li&gt;
&lt;li&gt;Do not use it to deceive, impersonate, harass or defraud anyone, and follow the rules
of the platforms you stream to.&lt;/li&gt;
&lt;li&gt;Tell your audience when what they see is synthetic. Fusecam draws a visible
&lt;b&gt;SYNTHETIC&lt;/b&gt; label on everything it sends out (virtual camera, stream and
recordings; your own preview stays clean). It is on by default: to turn it off, untick
the box below, or later &lt;i&gt;Outputs → Show a “SYNTHETIC” label&lt;/i&gt;.&lt;/li&gt;
&lt;/ul&gt;
</source>
        <translation>
&lt;h3&gt;Fusecam verantwortungsvoll nutzen&lt;/h3&gt;
&lt;p&gt;Fusecam ersetzt dein Gesicht live durch das Gesicht einer anderen Person.&lt;/p&gt;
&lt;ul&gt;
&lt;li&gt;Verwende nur Gesichter von Menschen, die &lt;b&gt;zugestimmt&lt;/b&gt; haben – dich selbst oder
jemanden, der dir seine Einwilligung gegeben hat.&lt;/li&gt;
&lt;li&gt;Nutze es nicht, um jemanden zu täuschen, dich als jemand anderes auszugeben, zu
belästigen oder zu betrügen, und halte die Regeln der Plattformen ein, auf denen du
streamst.&lt;/li&gt;
&lt;li&gt;Sag deinem Publikum, wenn das Gezeigte synthetisch ist. Fusecam zeichnet eine
sichtbare Kennzeichnung &lt;b&gt;SYNTHETIC&lt;/b&gt; auf alles, was es ausgibt (virtuelle Kamera,
Stream und Aufnahmen; deine eigene Vorschau bleibt frei davon). Sie ist standardmäßig
an: um sie auszuschalten, entferne unten das Häkchen, oder später unter
&lt;i&gt;Ausgänge → Kennzeichnung „SYNTHETIC“ zeigen&lt;/i&gt;.&lt;/li&gt;
&lt;/ul&gt;
</translation>
    </message>
    <message>
        <source>Fusecam — responsible use</source>
        <translation>Fusecam – verantwortungsvolle Nutzung</translation>
    </message>
    <message>
        <source>Show a visible “SYNTHETIC” label on the outputs</source>
        <translation>Eine sichtbare Kennzeichnung „SYNTHETIC“ auf den Ausgängen zeigen</translation>
    </message>
    <message>
        <source>I understand</source>
        <translation>Verstanden</translation>
    </message>
    <message>
        <source>Virtual camera (V)</source>
        <translation>Virtuelle Kamera (V)</translation>
    </message>
    <message>
        <source>Send the output to a virtual camera (OBS, Zoom, Meet)</source>
        <translation>Die Ausgabe an eine virtuelle Kamera senden (OBS, Zoom, Meet)</translation>
    </message>
    <message>
        <source>Local stream (L)</source>
        <translation>Lokaler Stream (L)</translation>
    </message>
    <message>
        <source>Record (R)</source>
        <translation>Aufnehmen (R)</translation>
    </message>
    <message>
        <source>Record the output to a video file</source>
        <translation>Die Ausgabe in eine Videodatei aufnehmen</translation>
    </message>
    <message>
        <source>Protection: starting…</source>
        <translation>Schutz: startet…</translation>
    </message>
    <message>
        <source>Output delay</source>
        <translation>Ausgabeverzögerung</translation>
    </message>
    <message>
        <source>Delay every output by this much after capture, so audio delayed by the same amount (in OBS) stays in sync. The preview stays live.</source>
        <translation>Jede Ausgabe um so viel nach der Aufnahme verzögern, damit um denselben Wert verzögerter Ton (in OBS) synchron bleibt. Die Vorschau bleibt live.</translation>
    </message>
    <message>
        <source>Virtual camera device</source>
        <translation>Gerät der virtuellen Kamera</translation>
    </message>
    <message>
        <source>Which virtual camera to send to. Automatic: the first free one. Linux: /dev/videoN (v4l2loopback); Windows: “Unity Video Capture”.</source>
        <translation>An welche virtuelle Kamera gesendet wird. Automatisch: die erste freie. Linux: /dev/videoN (v4l2loopback); Windows: „Unity Video Capture“.</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>Gerät</translation>
    </message>
    <message>
        <source>Automatic</source>
        <translation>Automatisch</translation>
    </message>
    <message>
        <source>Serve the output over HTTP: MPEG-TS with capture times for OBS&apos;s Media Source, MJPEG for browsers. Open the address shown for the OBS steps.</source>
        <translation>Die Ausgabe über HTTP bereitstellen: MPEG-TS mit Aufnahmezeiten für die Medienquelle von OBS, MJPEG für Browser. Die angezeigte Adresse öffnen, um die Schritte für OBS zu sehen.</translation>
    </message>
    <message>
        <source>port </source>
        <translation>Port </translation>
    </message>
    <message>
        <source>Stream port</source>
        <translation>Stream-Port</translation>
    </message>
    <message>
        <source>Port of the local stream (0: any free port); applies when the stream is switched on</source>
        <translation>Port des lokalen Streams (0: irgendein freier Port); gilt beim Einschalten des Streams</translation>
    </message>
    <message>
        <source>Other devices</source>
        <translation>Andere Geräte</translation>
    </message>
    <message>
        <source>Reachable from other devices on my network</source>
        <translation>Von anderen Geräten in meinem Netzwerk erreichbar</translation>
    </message>
    <message>
        <source>Listen on the local network, not only on this computer. Every viewer must then send the access token (it is in the URL you copy).</source>
        <translation>Im lokalen Netzwerk lauschen, nicht nur auf diesem Computer. Jeder Zuschauer muss dann den Zugangstoken senden (er steht in der kopierten URL).</translation>
    </message>
    <message>
        <source>Stream access token</source>
        <translation>Zugangstoken des Streams</translation>
    </message>
    <message>
        <source>The access token viewers on other devices must send</source>
        <translation>Der Zugangstoken, den Zuschauer auf anderen Geräten senden müssen</translation>
    </message>
    <message>
        <source>New token</source>
        <translation>Neuer Token</translation>
    </message>
    <message>
        <source>Make a new stream token</source>
        <translation>Einen neuen Stream-Token erzeugen</translation>
    </message>
    <message>
        <source>Copy URL</source>
        <translation>URL kopieren</translation>
    </message>
    <message>
        <source>Copy the stream URL</source>
        <translation>Die Stream-URL kopieren</translation>
    </message>
    <message>
        <source>Input beside output</source>
        <translation>Eingang neben Ausgabe</translation>
    </message>
    <message>
        <source>Record the camera image beside the output</source>
        <translation>Das Kamerabild neben der Ausgabe aufnehmen</translation>
    </message>
    <message>
        <source>The recording shows your camera image on the left and the output on the right, to compare them. The left half is NOT protected: it is your real face.</source>
        <translation>Die Aufnahme zeigt zum Vergleich links dein Kamerabild und rechts die Ausgabe. Die linke Hälfte ist NICHT geschützt: es ist dein echtes Gesicht.</translation>
    </message>
    <message>
        <source>waiting for frames…</source>
        <translation>warte auf Bilder…</translation>
    </message>
    <message>
        <source>Preview</source>
        <translation>Vorschau</translation>
    </message>
    <message>
        <source>Hold to see the original camera image</source>
        <translation>Halten, um das originale Kamerabild zu sehen</translation>
    </message>
    <message>
        <source>Show original / swapped (toggle)</source>
        <translation>Original / getauscht zeigen (umschalten)</translation>
    </message>
    <message>
        <source>Use face 1 … 9 of the gallery</source>
        <translation>Gesicht 1 … 9 der Galerie verwenden</translation>
    </message>
    <message>
        <source>Move to a face or control; Enter uses a face</source>
        <translation>Zu einem Gesicht oder Bedienelement wechseln; die Eingabetaste verwendet ein Gesicht</translation>
    </message>
    <message>
        <source>Add face photos</source>
        <translation>Gesichtsfotos hinzufügen</translation>
    </message>
    <message>
        <source>Face swap on / off</source>
        <translation>Gesichtstausch ein / aus</translation>
    </message>
    <message>
        <source>Mirror on / off</source>
        <translation>Spiegeln ein / aus</translation>
    </message>
    <message>
        <source>Enhancer on / off</source>
        <translation>Verbesserer ein / aus</translation>
    </message>
    <message>
        <source>Show / hide the heads-up display</source>
        <translation>Leistungsanzeige zeigen / verbergen</translation>
    </message>
    <message>
        <source>Show / hide the control panel</source>
        <translation>Bedienfeld zeigen / verbergen</translation>
    </message>
    <message>
        <source>Virtual camera on / off</source>
        <translation>Virtuelle Kamera ein / aus</translation>
    </message>
    <message>
        <source>Local network stream on / off</source>
        <translation>Stream im lokalen Netz ein / aus</translation>
    </message>
    <message>
        <source>Start / stop recording</source>
        <translation>Aufnahme starten / stoppen</translation>
    </message>
    <message>
        <source>This list</source>
        <translation>Diese Liste</translation>
    </message>
    <message>
        <source>Fusecam hit an internal error; a report was written to {path}. Please attach it when you report the problem.</source>
        <translation>Fusecam ist auf einen internen Fehler gestoßen; ein Bericht wurde nach {path} geschrieben. Bitte häng ihn an, wenn du das Problem meldest.</translation>
    </message>
    <message>
        <source>Log file and crash reports: {folder}</source>
        <translation>Protokolldatei und Absturzberichte: {folder}</translation>
    </message>
    <message>
        <source>Check a file for the watermark</source>
        <translation>Datei auf das Wasserzeichen prüfen</translation>
    </message>
    <message>
        <source>Images and videos (*)</source>
        <translation>Bilder und Videos (*)</translation>
    </message>
    <message>
        <source>Open a video or image as input</source>
        <translation>Ein Video oder Bild als Eingang öffnen</translation>
    </message>
    <message>
        <source>Videos and images</source>
        <translation>Videos und Bilder</translation>
    </message>
    <message>
        <source>Images</source>
        <translation>Bilder</translation>
    </message>
    <message>
        <source>Photos of one person</source>
        <translation>Fotos einer Person</translation>
    </message>
    <message>
        <source>Folder for recordings</source>
        <translation>Ordner für Aufnahmen</translation>
    </message>
    <message>
        <source>Models could not be listed: {error}</source>
        <translation>Modelle konnten nicht aufgelistet werden: {error}</translation>
    </message>
    <message>
        <source>ORIGINAL — press O to go back</source>
        <translation>ORIGINAL – O drücken für zurück</translation>
    </message>
    <message>
        <source>ORIGINAL — release Space to go back</source>
        <translation>ORIGINAL – Leertaste loslassen für zurück</translation>
    </message>
    <message>
        <source>The language changes when Fusecam starts again.</source>
        <translation>Die Sprache ändert sich beim nächsten Start von Fusecam.</translation>
    </message>
    <message>
        <source>Controls</source>
        <translation>Bedienung</translation>
    </message>
    <message>
        <source>cost — {cost}</source>
        <translation>Kosten – {cost}</translation>
    </message>
    <message>
        <source>The camera is back.</source>
        <translation>Die Kamera ist wieder da.</translation>
    </message>
    <message>
        <source>provider: {names}</source>
        <translation>Ausführung: {names}</translation>
    </message>
    <message>
        <source>none</source>
        <translation>keine</translation>
    </message>
    <message>
        <source>Running on the CPU: no GPU execution provider could be loaded.</source>
        <translation>Läuft auf der CPU: kein GPU-Ausführungsanbieter ließ sich laden.</translation>
    </message>
    <message>
        <source>Running on the CPU (no NVIDIA GPU found).</source>
        <translation>Läuft auf der CPU (keine NVIDIA-GPU gefunden).</translation>
    </message>
    <message>
        <source>Virtual camera</source>
        <translation>Virtuelle Kamera</translation>
    </message>
    <message>
        <source>Stream</source>
        <translation>Stream</translation>
    </message>
    <message>
        <source>Recorder</source>
        <translation>Aufnahme</translation>
    </message>
    <message>
        <source>on</source>
        <translation>an</translation>
    </message>
    <message>
        <source>on air: nothing</source>
        <translation>auf Sendung: nichts</translation>
    </message>
    <message>
        <source>on air: {outputs}</source>
        <translation>auf Sendung: {outputs}</translation>
    </message>
    <message>
        <source>Click or press {key} to switch it on or off</source>
        <translation>Klicken oder {key} drücken zum Ein- und Ausschalten</translation>
    </message>
    <message>
        <source>Watermark check</source>
        <translation>Wasserzeichen-Prüfung</translation>
    </message>
    <message>
        <source>Checking {file}…</source>
        <translation>{file} wird geprüft…</translation>
    </message>
    <message>
        <source>Watermark check details</source>
        <translation>Einzelheiten der Wasserzeichen-Prüfung</translation>
    </message>
    <message>
        <source>{file} carries Fusecam&apos;s watermark: it was made with Fusecam.</source>
        <translation>{file} trägt das Wasserzeichen von Fusecam: Es wurde mit Fusecam erstellt.</translation>
    </message>
    <message>
        <source>No Fusecam watermark found in {file}.</source>
        <translation>Kein Fusecam-Wasserzeichen in {file} gefunden.</translation>
    </message>
    <message>
        <source>{file} is too small to say whether it carries the watermark.</source>
        <translation>{file} ist zu klein, um zu sagen, ob es das Wasserzeichen trägt.</translation>
    </message>
    <message>
        <source>{file} could not be read as an image or a video.</source>
        <translation>{file} konnte nicht als Bild oder Video gelesen werden.</translation>
    </message>
    <message>
        <source>Activity log</source>
        <translation>Aktivitätsprotokoll</translation>
    </message>
    <message>
        <source>Each run of Fusecam&apos;s outputs adds a line: when, with which source face, which outputs were on and where files went. It stays on this computer.</source>
        <translation>Jeder Lauf der Ausgaben von Fusecam fügt eine Zeile hinzu: wann, mit welchem Quellgesicht, welche Ausgaben an waren und wohin Dateien gingen. Es bleibt auf diesem Computer.</translation>
    </message>
    <message>
        <source>Activity log entries</source>
        <translation>Einträge des Aktivitätsprotokolls</translation>
    </message>
    <message>
        <source>File: {path}</source>
        <translation>Datei: {path}</translation>
    </message>
    <message>
        <source>Clear the log</source>
        <translation>Protokoll leeren</translation>
    </message>
    <message>
        <source>(no entries)</source>
        <translation>(keine Einträge)</translation>
    </message>
</context>
</TS>
