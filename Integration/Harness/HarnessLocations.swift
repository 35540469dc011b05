// Where the harness finds its inputs (repository, venv, server files) and keeps its outputs.
import Foundation

/// The directories the harness reads from and writes to, all derived from the repository root.
struct HarnessLocations: Sendable {
    /// The repository root, found from this source file's path (`Integration/Harness/<file>.swift`).
    let repositoryRoot: URL
    /// `Integration/servers`: guard script, nginx templates, fault server, certificate and image scripts.
    let serversDirectory: URL
    /// The Python venv holding httpbin and gunicorn: `$AF_VENV` if set, else `<repo>/.build/venv`.
    let venv: URL
    /// `<repo>/.build/harness-runs`: one run folder per test process, named by its pid.
    let runsDirectory: URL
    /// This process's run folder: configuration, certificates, served files, logs.
    let runDirectory: URL
    /// `<repo>/.build/harness-cache`: files reused across runs (the 100 MiB download).
    let cacheDirectory: URL

    /// The locations for this process.
    static func current() -> HarnessLocations {
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()   // Harness
            .deletingLastPathComponent()   // Integration
            .deletingLastPathComponent()   // repository root
        let build = root.appendingPathComponent(".build")
        let venvOverride = ProcessInfo.processInfo.environment["AF_VENV"].flatMap { $0.isEmpty ? nil : $0 }
        let runs = build.appendingPathComponent("harness-runs")
        return HarnessLocations(
            repositoryRoot: root,
            serversDirectory: root.appendingPathComponent("Integration/servers"),
            venv: venvOverride.map { URL(fileURLWithPath: $0) } ?? build.appendingPathComponent("venv"),
            runsDirectory: runs,
            runDirectory: runs.appendingPathComponent(String(getpid())),
            cacheDirectory: build.appendingPathComponent("harness-cache"))
    }

    /// The run folder's log directory.
    var logsDirectory: URL { runDirectory.appendingPathComponent("logs") }

    /// A script or template in `Integration/servers`.
    func serverFile(_ name: String) -> URL { serversDirectory.appendingPathComponent(name) }

    /// The venv's Python interpreter, used for the fault server and the image script.
    var python: URL { venv.appendingPathComponent("bin/python") }

    /// Creates a fresh run folder for this process, removing run folders of processes that no longer exist.
    func prepareRunDirectory() throws(HarnessError) {
        let fileManager = FileManager.default
        do {
            try fileManager.createDirectory(at: runsDirectory, withIntermediateDirectories: true)
            for name in try fileManager.contentsOfDirectory(atPath: runsDirectory.path) {
                guard let pid = pid_t(name), pid != getpid() else { continue }
                if kill(pid, 0) == -1 && errno == ESRCH {
                    try? fileManager.removeItem(at: runsDirectory.appendingPathComponent(name))
                }
            }
            if fileManager.fileExists(atPath: runDirectory.path) {
                try fileManager.removeItem(at: runDirectory)  // left by an earlier process with our pid
            }
            try fileManager.createDirectory(at: logsDirectory, withIntermediateDirectories: true)
            try fileManager.createDirectory(at: cacheDirectory, withIntermediateDirectories: true)
        } catch {
            throw .setupFailed(step: "creating the run folder \(runDirectory.path)", reason: "\(error)")
        }
    }

    /// Throws `.missingTool` unless `path` is an executable file.
    func requireExecutable(_ path: String, name: String, hint: String) throws(HarnessError) {
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw .missingTool(name: name, hint: hint)
        }
    }
}
