print("stratus")
