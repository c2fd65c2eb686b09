fn main() -> std::process::ExitCode {
    sprague::cli::main()
}
