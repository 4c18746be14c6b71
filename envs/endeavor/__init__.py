"""Endeavor: Age of Sail, rules-sheet edition (work in progress; not registered yet)"""
