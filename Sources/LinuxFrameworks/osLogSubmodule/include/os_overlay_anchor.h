// Empty: the Clang module `os` exists only so that `import os.log` finds its Swift overlay.
